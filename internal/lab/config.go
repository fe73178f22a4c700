package lab

import (
	"perflab/internal/runfmt"
	"perflab/internal/session"
)

// Config describes one run (see session.Config).
type Config = session.Config

// Result is a finished (or partial) run.
type Result = session.Result

// ProfilerChoice is how the service is to be profiled (--profiler).
type ProfilerChoice = session.ProfilerChoice

// The choices besides a profiler.
const (
	ProfilerAuto = session.ProfilerAuto
	ProfilerNone = session.ProfilerNone
)

// Profilers are the names of perflab's own profilers, in the order the
// auto choice tries them: --profiler's words besides auto and none.
func Profilers() []runfmt.Profiler { return session.Profilers() }

// The errors of a run (see package session).
var (
	ErrInterrupted   = session.ErrInterrupted
	ErrStuck         = session.ErrStuck
	ErrNotTheService = session.ErrNotTheService
)

// ServiceExitError is a service that stopped by itself while perflab
// measured it; SaveError a run whose run.json could not be written.
type (
	ServiceExitError = session.ServiceExitError
	SaveError        = session.SaveError
)
