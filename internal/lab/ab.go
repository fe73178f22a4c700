package lab

import (
	"context"
	"fmt"

	"perflab/internal/session"
)

// Sides of an A/B experiment.
const (
	SideBase = "base"
	SideNew  = "new"
)

// RunDone is called after each run of an A/B or sweep experiment with the
// arm it belonged to ("base"/"new", or the swept value), the repetition
// (from 0), and lab.Run's result and error.
type RunDone func(arm string, rep int, res *Result, err error)

// AB runs base and new interleaved — base, new, base, new … — runs times
// each, every one a full Run, named NAME-base and NAME-new after base.Name.
// Interleaving spreads drift of the machine (thermal, other load) over
// both sides instead of biasing one.
//
// When ctx is cancelled the run under way finishes, no further run starts,
// and AB returns the runs that finished with ctx's error. A run that
// produced no load result (the service did not start) ends the experiment
// with that error; a run that is partial but measured is kept.
func AB(ctx context.Context, base, new Config, runs int, done RunDone) (baseRes, newRes []*Result, err error) {
	name := experimentName(base.Name)
	return abPair(ctx, runs, done, serviceArm(SideBase, base, name), serviceArm(SideNew, new, name))
}

// abPair runs the two arms of an A/B experiment interleaved, runs times
// each.
func abPair(ctx context.Context, runs int, done RunDone, base, new arm) (baseRes, newRes []*Result, err error) {
	if runs < 1 {
		return nil, nil, fmt.Errorf("ab: runs %d: want at least 1", runs)
	}
	groups, err := interleave(ctx, []arm{base, new}, runs, done)
	return groups[0], groups[1], err
}

// serviceArm is the arm of side label that runs the service of c, its
// runs named NAME-label after name.
func serviceArm(label string, c Config, name string) arm {
	return arm{label: label, cfg: named(c, name+"-"+label)}
}

// experimentName is the name an experiment's runs are named after: the
// configuration's name, or "run".
func experimentName(name string) string {
	if name == "" {
		return "run"
	}
	return name
}

// arm is one configuration of an experiment; run, when set, runs it
// instead of Run (a batch program's arm).
type arm struct {
	label string
	cfg   Config
	run   func(context.Context) (*Result, error)
}

func named(c Config, name string) Config {
	c.Name = name
	return c
}

// interleave runs each arm once per repetition, in order, and groups the
// results by arm. Cancelling ctx lets the run under way finish (it is kept)
// and starts no other; closing the arms' Hurry (a second Ctrl-C)
// interrupts the run under way, which is kept as partial.
func interleave(ctx context.Context, arms []arm, runs int, done RunDone) ([][]*Result, error) {
	groups := make([][]*Result, len(arms))
	for rep := range runs {
		for i, a := range arms {
			if err := ctx.Err(); err != nil {
				return groups, err
			}
			rctx, cancel := session.Hurried(ctx, a.cfg.Hurry)
			run := a.run
			if run == nil {
				run = func(ctx context.Context) (*Result, error) { return Run(ctx, a.cfg) }
			}
			res, err := run(rctx)
			cancel()
			measured := res != nil && (res.Run.Load != nil || measuredBatch(res.Run))
			if measured {
				groups[i] = append(groups[i], res)
			}
			if done != nil {
				done(a.label, rep, res, err)
			}
			if !measured {
				if err == nil {
					err = fmt.Errorf("no load result")
				}
				return groups, fmt.Errorf("%s run %d of %d: %w", a.label, rep+1, runs, err)
			}
		}
	}
	return groups, ctx.Err()
}
