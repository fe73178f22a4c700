package cli

import (
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/pflag"

	"perflab/internal/lab"
	"perflab/internal/units"
)

// pgoFlags are --pgo FILE (run, ab, sweep, demo) and, on ab and sweep,
// which runs it merges.
type pgoFlags struct {
	path string
	// side is ab's --pgo-side or sweep's --pgo-value: the arm whose runs
	// are merged.
	side string
}

func (p *pgoFlags) register(fs *pflag.FlagSet) {
	flagSet{fs}.checked(&p.path, "pgo", "", "", "file", lab.CheckPGOOutput,
		"write the measured CPU profile, merged across the runs, to `file` for go build -pgo=file (a Go service profiled through its net/http/pprof)")
}

// registerSide adds ab's --pgo-side: the base side by default, as Go's
// profile-guided optimisation profiles the build that runs now (the base)
// to build the next one; --pgo-side new profiles the candidate instead.
func (p *pgoFlags) registerSide(fs *pflag.FlagSet) {
	flagSet{fs}.choice(&p.side, "pgo-side", lab.SideBase, []string{lab.SideBase, lab.SideNew},
		"with --pgo: merge the runs of this side, "+lab.SideBase+" (the build that runs now, the one Go's PGO profiles) or "+lab.SideNew)
}

// registerValue adds sweep's --pgo-value.
func (p *pgoFlags) registerValue(fs *pflag.FlagSet) {
	flagSet{fs}.checked(&p.side, "pgo-value", "", "", "value", nonEmpty,
		"with --pgo: merge the runs of this swept `value` (default: the first, the one the others are compared with)")
}

// check refuses, before any run, what --pgo cannot be written from: c is
// the configuration of the runs it would merge.
func (p *pgoFlags) check(fs *pflag.FlagSet, c lab.Config) error {
	if p.path == "" {
		for _, name := range []string{"pgo-side", "pgo-value"} {
			if fl := fs.Lookup(name); fl != nil && fl.Changed {
				return usageErr("--%s goes with --pgo FILE", name)
			}
		}
		return nil
	}
	if err := lab.CheckPGO(c); err != nil {
		return usageErr("--pgo %s: %v", p.path, err)
	}
	return nil
}

// pick is the index of the swept value whose runs --pgo merges.
func (p *pgoFlags) pick(values []string) (int, error) {
	if p.side == "" {
		return 0, nil
	}
	i := slices.Index(values, p.side)
	if i < 0 {
		return 0, usageErr("--pgo-value %s: not a swept value (%s)", p.side, orList(values))
	}
	return i, nil
}

// write merges runs into --pgo's file once the experiment ended, and says
// what it wrote on stderr; of names the runs ("of the base side", or ""
// for a run alone). prior is the experiment's own error: it stays the
// command's; otherwise a profile go build -pgo does not take exits 2 and
// one that could not be written 3.
func (p *pgoFlags) write(env Env, quiet bool, of string, runs []*lab.Result, prior error) error {
	if p.path == "" || len(runs) == 0 {
		return prior
	}
	pg, err := lab.WritePGO(p.path, runs)
	if err != nil {
		err = fmt.Errorf("--pgo %s: %w", p.path, err)
		switch {
		case prior != nil:
			fmt.Fprintf(env.Stderr, "perflab: %v\n", oneLine(err.Error()))
			return prior
		case errors.Is(err, lab.ErrPGOInput):
			return &exitError{code: ExitUsage, err: err}
		}
		return failed(err)
	}
	for _, s := range pg.Skipped {
		fmt.Fprintf(env.Stderr, "perflab: --pgo: left out %s\n", oneLine(s))
	}
	if !quiet {
		noun := "runs"
		if len(pg.Runs) == 1 {
			noun = "run"
		}
		fmt.Fprintf(env.Stderr, "perflab: wrote %s: %s CPU samples (%s of CPU) from %d %s%s; build with go build -pgo=%s\n",
			p.path, units.FormatValue(float64(pg.Samples), "count"), units.FormatValue(float64(pg.CPUNanos), "nanoseconds"),
			len(pg.Runs), noun, of, p.path)
	}
	return prior
}

// results is a run's result as the runs --pgo merges.
func results(res *lab.Result) []*lab.Result {
	if res == nil {
		return nil
	}
	return []*lab.Result{res}
}

// pickSide is ab's base or new, as --pgo-side names it.
func pickSide[T any](side string, base, new T) T {
	if side == lab.SideNew {
		return new
	}
	return base
}

// groupAt is the runs of the i-th swept value; none when the sweep ended
// before it ran.
func groupAt(groups [][]*lab.Result, i int) []*lab.Result {
	if i < len(groups) {
		return groups[i]
	}
	return nil
}
