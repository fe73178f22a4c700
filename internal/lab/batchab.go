package lab

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"perflab/internal/runfmt"
)

// ABBatch runs two batch programs interleaved — base, new, base, new … —
// runs times each, every one a full RunBatch, named NAME-base and NAME-new
// after base.Name, as AB does for services: Ctrl-C lets the run under way
// finish, a second one interrupts it (kept as partial). A run that did not
// measure the program (it could not start) ends the experiment with its
// error.
//
// Only the runs whose program completed (exited 0) are returned for the
// comparison: a run whose program failed (a non-zero exit, a signal, or
// --timeout) is kept as a partial run directory but not compared, since
// its wall time and CPU measure work that was not done; neither is a run a
// second Ctrl-C cut short. When a side had runs that failed, the error is
// a *FailedRunsError (joined with what ended the experiment, if anything):
// with some of its runs completed they are compared and the error says
// how many failed; with none, the side has nothing to compare.
func ABBatch(ctx context.Context, base, new BatchConfig, runs int, done RunDone) (baseRes, newRes []*Result, err error) {
	name := experimentName(base.Name)
	b, n, err := abPair(ctx, runs, done, batchArm(SideBase, base, name), batchArm(SideNew, new, name))
	var fe FailedRunsError
	b = completedRuns(SideBase, b, &fe)
	n = completedRuns(SideNew, n, &fe)
	if len(fe.Sides) > 0 {
		err = errors.Join(err, &fe)
	}
	return b, n, err
}

// batchArm is the arm of side label that runs the batch program of c, its
// runs named NAME-label after name.
func batchArm(label string, c BatchConfig, name string) arm {
	c.Name = name + "-" + label
	return arm{label: label, cfg: c.Config, run: func(ctx context.Context) (*Result, error) { return RunBatch(ctx, c) }}
}

// measuredBatch says whether a run measured a batch program: it ran and
// its wall time was taken.
func measuredBatch(r *runfmt.Run) bool { return r.Batch != nil && r.Batch.WallS > 0 }

// FailedRunsError is an A/B of batch programs in which a side's program
// failed in some or all of its runs; those runs were not compared.
type FailedRunsError struct {
	Sides []FailedSide
}

// FailedSide is one side's runs whose program failed.
type FailedSide struct {
	// Side is "base" or "new"; Failed of Runs runs failed, each ending as
	// one of Statuses ("exit status 2", "killed by signal 11
	// (segmentation fault)", "stopped at --timeout 10s").
	Side         string
	Failed, Runs int
	Statuses     []string
}

// All says whether every run of the side failed: it has nothing to compare.
func (f FailedSide) All() bool { return f.Failed == f.Runs }

func (f FailedSide) String() string {
	how := strings.Join(f.Statuses, ", ")
	if f.All() {
		return fmt.Sprintf("%s failed: its program failed in all %d runs (%s), and a failed run is not compared", f.Side, f.Runs, how)
	}
	return fmt.Sprintf("%s: its program failed in %d of %d runs (%s); those are not compared, the %d that completed are",
		f.Side, f.Failed, f.Runs, how, f.Runs-f.Failed)
}

func (e *FailedRunsError) Error() string {
	var s []string
	for _, f := range e.Sides {
		s = append(s, f.String())
	}
	return strings.Join(s, "; ")
}

// completedRuns keeps the runs of side whose program completed, and adds
// the side's failed runs to fe.
func completedRuns(side string, rs []*Result, fe *FailedRunsError) []*Result {
	var ok []*Result
	f := FailedSide{Side: side, Runs: len(rs)}
	for _, r := range rs {
		b := r.Run.Batch
		switch {
		case b.Interrupted:
			f.Runs-- // cut short by the user: not the program's failure
		case b.TimedOut:
			f.Failed++
			f.Statuses = appendNew(f.Statuses, fmt.Sprintf("stopped at --timeout %gs", b.TimeoutS))
		case b.ExitCode == nil || *b.ExitCode != 0:
			f.Failed++
			f.Statuses = appendNew(f.Statuses, cmp.Or(b.ExitStatus, "its exit not seen"))
		default:
			ok = append(ok, r)
		}
	}
	if f.Failed > 0 {
		fe.Sides = append(fe.Sides, f)
	}
	return ok
}

// appendNew appends s to list unless it is there already.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
