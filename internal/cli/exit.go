package cli

import (
	"context"
	"errors"
	"fmt"

	"perflab/internal/lab"
)

// ExitCode is perflab's process exit status.
type ExitCode int

// Exit codes.
const (
	ExitOK          ExitCode = 0
	ExitRegression  ExitCode = 1   // compare/ab/sweep: a --fail-on threshold was crossed
	ExitUsage       ExitCode = 2   // bad flags or input
	ExitFailed      ExitCode = 3   // the run could not be done (the target failed, ...)
	ExitSLO         ExitCode = 4   // an --slo objective was missed
	ExitInterrupted ExitCode = 130 // Ctrl-C or SIGTERM; what completed was written
)

// exitError carries an exit code with an error message.
type exitError struct {
	code ExitCode
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

func failed(err error) error { return &exitError{code: ExitFailed, err: err} }

// errSilent ends a command with a code after it printed its own output.
type silentExit struct{ code ExitCode }

func (s *silentExit) Error() string { return fmt.Sprintf("exit %d", s.code) }

// interrupted says whether err is the user's Ctrl-C (or SIGTERM) ending
// the command, in whatever phase.
func interrupted(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, lab.ErrInterrupted)
}

// codeOf maps an error to the exit code.
func codeOf(ctx context.Context, err error) ExitCode {
	var se *silentExit
	var ee *exitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &se):
		return se.code
	case errors.As(err, &ee):
		return ee.code
	case ctx.Err() != nil:
		return ExitInterrupted
	}
	return ExitUsage
}
