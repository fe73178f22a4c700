package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"perflab/internal/lab"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// batchFlags are the flags of run and ab that mean something for a batch
// program (no URL): its budget, environment, profiler, --timeout, where
// the runs go and how they print; ab's own flags besides.
var batchFlags = []string{
	"cpus", "memory", "service-cpus", "env", "profiler", "perf-hz", "no-gctrace", "timeout",
	"name", "dir", "json", "quiet", "src", "user-code", "format",
	"base", "new", "runs", "fail-on", "html", "md", "junit", "runs-url",
	"git", "build", "build-timeout", "uncommitted", "repo", // ab --git of a batch program
}

// checkBatchFlags refuses the flags given that a batch program does not
// take (the load's, the warm-up, --pid ...), naming them.
func checkBatchFlags(fs *pflag.FlagSet) error {
	var bad []string
	fs.Visit(func(fl *pflag.Flag) {
		if !slices.Contains(batchFlags, fl.Name) {
			bad = append(bad, "--"+fl.Name)
		}
	})
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return usageErr("%s: a batch program (a command without a URL) is run once and measured until it exits; it takes no load, warm-up, readiness or attach flags (give a URL to load a service)",
		strings.Join(bad, ", "))
}

// batchConfig builds the lab config of a batch program's run.
func (f *runFlags) batchConfig(env Env, fs *pflag.FlagSet, command []string) (lab.BatchConfig, error) {
	var bc lab.BatchConfig
	if err := checkBatchFlags(fs); err != nil {
		return bc, err
	}
	switch lab.ProfilerChoice(f.profiler) {
	case lab.ProfilerAuto, lab.ProfilerNone, lab.ProfilerChoice(runfmt.ProfilerPerf):
	default:
		return bc, usageErr("--profiler %s: a batch program is profiled with perf (auto), or not at all (none)", f.profiler)
	}
	budget, err := f.budget()
	if err != nil {
		return bc, err
	}
	name := f.name
	if name == "" {
		name = defaultName(command, 0)
	}
	st, err := writableStore(f.dir)
	if err != nil {
		return bc, err
	}
	bc.Config = lab.Config{
		Name: name, Store: st, Command: command, Env: f.env, Budget: budget,
		Profiler: lab.ProfilerChoice(f.profiler), PerfHz: f.perfHz, NoGCTrace: f.noGCTrace,
		Version: Version, Hurry: env.Hurry,
	}
	if fs.Changed("timeout") {
		bc.Timeout = f.load.timeout
	}
	return bc, f.deploy.apply(&bc.Config)
}

// runBatch runs a batch program once and prints its run.
func runBatch(cmd *cobra.Command, env Env, f *runFlags, command []string) error {
	if f.out.format.is(formatMarkdown, formatJUnit) || f.out.md != "" || f.out.junit != "" {
		return usageErr("a batch program's run prints as text or --json (--format markdown, --md and --junit are for a service's run and comparisons)")
	}
	bc, err := f.batchConfig(env, cmd.Flags(), command)
	if err != nil {
		return err
	}
	if !f.quiet {
		bc.Log = func(msg string) { fmt.Fprintf(env.Stderr, "perflab: %s\n", msg) }
	}
	res, err := lab.RunBatch(cmd.Context(), bc)
	if res == nil {
		if interrupted(err) {
			return &exitError{code: ExitInterrupted, err: err}
		}
		return failed(err)
	}
	if werr := f.out.format.write(env.Stdout, batchViews(res.Run, res.Dir)); werr != nil {
		return failed(werr)
	}
	return runError(res, err)
}

// batchViews renders a batch program's run: its text, or run.json.
func batchViews(r *runfmt.Run, dir string) views {
	return views{
		formatText: func(w io.Writer) error { return report.WriteBatchText(w, r, dir) },
		formatJSON: jsonView(r),
	}
}

// batchSides are ab's two batch programs (base, new) and the runs of each.
type batchSides struct {
	argv [2][]string
	runs int
}

// runABBatch runs two batch programs interleaved and compares them.
func runABBatch(cmd *cobra.Command, env Env, f *runFlags, cf compareFlags, sides batchSides) error {
	argv, runs := sides.argv, sides.runs
	opt, err := cf.options()
	if err != nil {
		return err
	}
	if err := checkBatchFailOn(opt); err != nil {
		return err
	}
	var cfgs [2]lab.BatchConfig
	for i, a := range argv {
		if cfgs[i], err = f.batchConfig(env, cmd.Flags(), a); err != nil {
			return err
		}
		if !f.quiet {
			cfgs[i].Log = func(msg string) { fmt.Fprintf(env.Stderr, "perflab: %s\n", msg) }
		}
	}
	if f.name == "" {
		cfgs[0].Name = sharedName(cfgs[0].Name, cfgs[1].Name)
	}
	cfgs[1].Name = cfgs[0].Name
	cf.runsDir = f.dir
	stopNote := context.AfterFunc(cmd.Context(), func() {
		fmt.Fprintln(env.Stderr, "perflab: stopping after the run under way (Ctrl-C again interrupts it, and it is kept as partial)")
	})
	defer stopNote()
	b, n, err := lab.ABBatch(cmd.Context(), cfgs[0], cfgs[1], runs, batchRunLine(env, runs))
	cf.notes = append(cf.notes, failedRunNotes(err)...)
	opt.Expected = []string{"command"}
	return finishExperiment(env, err, func() error {
		if len(b) == 0 || len(n) == 0 {
			return errNothing
		}
		return runCompare(env, entries(b), entries(n), opt, cf)
	})
}

// batchRunLine prints one line to stderr per finished batch run.
func batchRunLine(env Env, runs int) lab.RunDone {
	return func(arm string, rep int, res *lab.Result, err error) {
		msg := "no run directory"
		if res != nil {
			msg = res.Dir
			if b := res.Run.Batch; b != nil && b.WallS > 0 {
				msg = fmt.Sprintf("%s wall, %s CPU (%s)", units.FormatMicros(b.WallS*1e6), units.FormatMicros(b.CPUS*1e6), res.Dir)
			}
		}
		if err != nil {
			msg += ": " + oneLine(err.Error())
		}
		fmt.Fprintf(env.Stderr, "perflab: %s run %d/%d: %s\n", arm, rep+1, runs, msg)
	}
}
