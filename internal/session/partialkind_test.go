package session

import (
	"errors"
	"fmt"
	"testing"

	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// TestPartialKind: why a run stopped is typed from its error, whatever
// words wrap it; the OOM killer, seen in the service's summary, names a
// service that exited; an error perflab does not know is a failure.
func TestPartialKind(t *testing.T) {
	exited := &ServiceExitError{Phase: "the measured window", Status: "signal: killed"}
	for _, tc := range []struct {
		err    error
		target *runfmt.TargetSummary
		want   runfmt.PartialKind
	}{
		{fmt.Errorf("%w: the run covers what completed before Ctrl-C", ErrInterrupted), nil, runfmt.PartialInterrupted},
		{fmt.Errorf("%w: %v", ErrInterrupted, exited), nil, runfmt.PartialInterrupted},
		{exited, nil, runfmt.PartialExited},
		{exited, &runfmt.TargetSummary{OOMKilled: true}, runfmt.PartialOOMKilled},
		{fmt.Errorf("starting: %w at http://127.0.0.1:1/ (exit status 1)", service.ErrExitedBeforeReady), nil, runfmt.PartialExitedBeforeReady},
		{fmt.Errorf("%w after 30s at http://127.0.0.1:1/: no attempt finished", service.ErrNotReady), nil, runfmt.PartialNotReady},
		{fmt.Errorf("%w in the window: 8 were still in flight", errNoRequestFinished), nil, runfmt.PartialNoRequestFinished},
		{fmt.Errorf("%w in the window: all 9 failed", errNoRequestSucceeded), nil, runfmt.PartialNoRequestSucceeded},
		{fmt.Errorf("%w: no request finished for 1.50 s with 8 in flight", ErrStuck), nil, runfmt.PartialStuck},
		{errors.New("no CPU profile was captured"), nil, runfmt.PartialFailed},
	} {
		if got := PartialKind(tc.err, tc.target); got != tc.want {
			t.Errorf("PartialKind(%v, %+v) = %s; want %s", tc.err, tc.target, got, tc.want)
		}
	}
}
