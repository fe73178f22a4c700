package lab

import (
	"context"

	"perflab/internal/runfmt"
)

// ABBatch runs two batch programs interleaved — base, new, base, new … —
// runs times each, every one a full RunBatch, named NAME-base and NAME-new
// after base.Name, as AB does for services: Ctrl-C lets the run under way
// finish, a second one interrupts it (kept as partial). A run that did not
// measure the program (it could not start) ends the experiment with its
// error; one that exited non-zero is kept, partial.
func ABBatch(ctx context.Context, base, new BatchConfig, runs int, done RunDone) (baseRes, newRes []*Result, err error) {
	name := experimentName(base.Name)
	return abPair(ctx, runs, done, batchArm(SideBase, base, name), batchArm(SideNew, new, name))
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
