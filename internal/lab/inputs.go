package lab

import (
	"perflab/internal/revision"
	"perflab/internal/session"
)

// The settings of an experiment as the command line gives them, checked
// before any run (see package session and package revision).

// Budget is the service's budget, CPUSet a set of CPUs.
type (
	Budget = session.Budget
	CPUSet = session.CPUSet
)

// ParseCPUs, ParseMemory and ParseCPUList parse --cpus, --memory and a
// list of CPUs.
func ParseCPUs(s string) (float64, error)   { return session.ParseCPUs(s) }
func ParseMemory(s string) (int64, error)   { return session.ParseMemory(s) }
func ParseCPUList(s string) (CPUSet, error) { return session.ParseCPUList(s) }

// CheckProgram, CheckCgroup and CheckPID refuse a service that cannot be
// run or attached to (see package session).
func CheckProgram(prog string) error { return session.CheckProgram(prog) }
func CheckCgroup(path string) error  { return session.CheckCgroup(path) }
func CheckPID(pid int) error         { return session.CheckPID(pid) }

// PerfHz are the profilers' default sampling rates, for --perf-hz's help.
func PerfHz() (perf, asyncProfiler, spy int) { return session.PerfHz() }

// GitRange is --git's BASE..NEW; GitBuildError a side's build that
// failed.
type (
	GitRange      = revision.Range
	GitBuildError = revision.BuildError
)

// ParseGitRange parses --git's BASE..NEW.
func ParseGitRange(s string) (GitRange, error) { return revision.ParseRange(s) }

// ErrGitInput is wrapped by the errors of --git's revisions that come
// from what the user gave (ab's and bench's).
var ErrGitInput = revision.ErrInput
