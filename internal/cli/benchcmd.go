package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"perflab/internal/compare"
	"perflab/internal/gobench"
	"perflab/internal/lab"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// benchFlags are perflab bench's flags.
type benchFlags struct {
	flags       gobench.Flags
	noProfiles  bool
	benchmem    bool
	run         string
	name, dir   string
	quiet       bool
	failOn      string
	out         reportFlags
	git         gitRange
	uncommitted bool
	repo        string
}

func newBenchCmd(env Env) *cobra.Command {
	var bf benchFlags
	cmd := &cobra.Command{
		Use:   "bench [packages] [--bench REGEX] [--count N] [--git BASE..NEW]",
		Short: "Run Go benchmarks as benchstat needs them, with the lines that burn CPU and allocate",
		Long: `Run the Go benchmarks of the packages (default ".") as
go test -run '^$' -bench REGEX -benchmem -count N does, from their test binary
built once, and print each benchmark's ns/op, B/op, allocs/op (and its own
units) as medians with 95% confidence intervals, as benchstat does. Then each
benchmark's CPU and allocation profiles are taken in runs of their own, so
they do not distort the timed figures, and the lines of your module that burn
CPU and allocate are printed, each charged with the library code it calls.
The results are stored as a run ('perflab runs').

With --git BASE..NEW the packages of two revisions are checked out into
temporary worktrees, built once each, run interleaved (base, new, base, ...)
and compared with benchstat's method; --fail-on exits 1 on a significant
regression beyond a threshold. go test's single-dash flags (-bench, -count,
-benchtime, -cpu, -timeout, -benchmem) are accepted too.`,
		Example: `  perflab bench
  perflab bench -bench Algorithm -count 10 ./stream
  perflab bench --benchtime 2s --cpu 1,2 ./...
  perflab bench --git main..HEAD --fail-on "ns/op>+5%,allocs/op>0" --md summary.md ./parser`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBench(cmd, env, &bf, args)
		},
	}
	bf.register(cmd)
	return cmd
}

// maxBenchCount bounds --count.
const maxBenchCount = 1000

func (bf *benchFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	v := flagSet{fs}
	v.checked(&bf.flags.Pattern, "bench", "", ".", "regexp", checkRegexp, "run the benchmarks matching `regexp` (go test -bench)")
	v.int(&bf.flags.Count, "count", "", DefaultABRuns, 1, maxBenchCount, "timed runs of each benchmark (6 give benchstat's 95% confidence intervals; with --git, of each side)")
	v.checked(&bf.flags.Benchtime, "benchtime", "", "", "t", checkBenchtime, "run each benchmark for `t`: a duration (1s) or a count of iterations (1000x), as go test -benchtime")
	v.checked(&bf.flags.CPU, "cpu", "", "", "list", checkCPUList, "GOMAXPROCS values to run each benchmark with, e.g. 1,2,4 (go test -cpu)")
	v.duration(&bf.flags.Timeout, "timeout", "", 10*time.Minute, 0, 7*24*time.Hour, "stop a test binary that runs longer than this and name the benchmark it was in (go test -timeout, which Go applies to tests only; 0: none)")
	fs.BoolVar(&bf.noProfiles, "no-profiles", false, "skip the profile runs (no lines, the timed runs only)")
	fs.BoolVar(&bf.benchmem, "benchmem", true, "allocations are always measured (accepted for go test's habit)")
	fs.StringVar(&bf.run, "run", "^$", "tests never run, only benchmarks (go test's -run accepted and ignored)")
	_ = fs.MarkHidden("benchmem")
	_ = fs.MarkHidden("run")
	v.checked(&bf.name, "name", "", "", "name", checkRunName, "label the run (default bench- and the first package's name)")
	v.checked(&bf.dir, "dir", "", store.DefaultRootHelp, "directory", nonEmpty, "`directory` that keeps the runs")
	fs.BoolVarP(&bf.quiet, "quiet", "", false, "no progress lines on stderr")
	v.checked(&bf.failOn, "fail-on", "", "", "rules", checkBenchFailOn, "with --git: exit 1 when a benchmark changes significantly beyond a `rule`, e.g. \"ns/op>+5%,allocs/op>0\" (UNIT>PCT% or a change in the unit)")
	bf.out.register(cmd, "print the run (with --git, the comparison) as JSON")
	fs.Var(&bf.git, "git", "compare two revisions: `BASE..NEW` (BASE...NEW: from their merge base; NEW alone: from its merge base with the default branch), each checked out into a temporary worktree")
	fs.BoolVar(&bf.uncommitted, "uncommitted", false, "with --git: NEW is the working tree with its uncommitted changes")
	v.checked(&bf.repo, "repo", "", ".", "directory", checkDir, "with --git: a `directory` of the git repository")
}

func checkBenchFailOn(s string) error {
	_, err := compare.ParseBenchFailOn(s)
	return err
}

// checkBenchtime accepts go test's -benchtime: a positive duration or a
// positive count of iterations with an x.
func checkBenchtime(s string) error {
	if n, ok := strings.CutSuffix(s, "x"); ok {
		var v int
		if _, err := fmt.Sscanf(n, "%d", &v); err != nil || v < 1 || fmt.Sprint(v) != n {
			return errors.New("want a duration like 1s or a count of iterations like 1000x")
		}
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return errors.New("want a duration like 1s or a count of iterations like 1000x")
	}
	return nil
}

// checkCPUList accepts go test's -cpu: GOMAXPROCS values from 1 up,
// comma-separated.
func checkCPUList(s string) error {
	for item := range strings.SplitSeq(s, ",") {
		var v int
		if _, err := fmt.Sscanf(item, "%d", &v); err != nil || v < 1 || v > 1<<16 || fmt.Sprint(v) != item {
			return fmt.Errorf("%q: want GOMAXPROCS values from 1 up, comma-separated, e.g. 1,2,4", item)
		}
	}
	return nil
}

// check refuses flags that go with --git alone.
func (bf *benchFlags) check(fs *pflag.FlagSet) error {
	if bf.git.set {
		return nil
	}
	for _, name := range []string{"uncommitted", "repo", "fail-on"} {
		if fs.Changed(name) {
			return usageErr("--%s goes with --git BASE..NEW (it compares two revisions)", name)
		}
	}
	return nil
}

func (bf *benchFlags) config(env Env, args []string) (gobench.Config, error) {
	st, err := writableStore(bf.dir)
	if err != nil {
		return gobench.Config{}, err
	}
	cfg := gobench.Config{Packages: args, Flags: bf.flags, NoProfiles: bf.noProfiles, Store: st, Name: bf.name, Version: Version}
	if !bf.quiet {
		cfg.Log = func(s string) { fmt.Fprintf(env.Stderr, "perflab: %s\n", s) }
	}
	// What changes what is measured is said under --quiet too.
	cfg.Note = func(s string) { fmt.Fprintf(env.Stderr, "perflab: %s\n", s) }
	return cfg, nil
}

func runBench(cmd *cobra.Command, env Env, bf *benchFlags, args []string) error {
	if err := bf.check(cmd.Flags()); err != nil {
		return err
	}
	if cmd.ArgsLenAtDash() >= 0 {
		return usageErr("bench takes packages, not a command after --")
	}
	cfg, err := bf.config(env, args)
	if err != nil {
		return err
	}
	if bf.git.set {
		return runBenchGit(cmd.Context(), env, bf, cfg)
	}
	res, err := gobench.Run(cmd.Context(), cfg)
	if res == nil {
		return benchErr(env, cmd.Context(), err)
	}
	if perr := printBench(env, bf, res); perr != nil {
		return perr
	}
	if err == nil && res.Run.Status == runfmt.StatusDegraded {
		// A profile it set out to take was lost: what it printed lacks
		// the lines it promised.
		return failed(fmt.Errorf("run %s is degraded: %s", res.Run.ID, report.DegradedText(res.Run)))
	}
	return benchErr(env, cmd.Context(), err)
}

// printBench prints a bench run in the chosen format and writes --md and
// --junit.
func printBench(env Env, bf *benchFlags, res *gobench.Stored) error {
	v := benchViews(res.Run, res.Dir, bf.out.markdownOptions(env, bf.dir))
	v[formatJUnit] = bf.out.junitView("perflab bench "+res.Run.Name, report.BenchCases(res.Run))
	return bf.out.print(env, v)
}

// benchViews renders a bench run as text, JSON and markdown.
func benchViews(r *runfmt.Run, dir string, mopt report.MarkdownOptions) views {
	return views{
		formatText:     func(w io.Writer) error { return report.WriteBenchText(w, r, dir) },
		formatJSON:     jsonView(r),
		formatMarkdown: func(w io.Writer) error { return report.WriteBenchMarkdown(w, r, mopt) },
	}
}

// benchErr maps perflab bench's errors: bad input exits 2, a build or a
// benchmark that failed shows its output and exits 3 (one stopped at
// --timeout shows where it was), Ctrl-C exits 130.
func benchErr(env Env, ctx context.Context, err error) error {
	var be *gobench.BuildError
	var re *gobench.RunError
	var te *gobench.TimeoutError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, gobench.ErrInput):
		return usageErr("%s", strings.TrimPrefix(err.Error(), gobench.ErrInput.Error()+": "))
	case errors.Is(err, lab.ErrGitInput):
		return usageErr("--git: %s", strings.TrimPrefix(err.Error(), lab.ErrGitInput.Error()+": "))
	case errors.As(err, &be):
		printOutput(env, "the compiler's output", be.Output)
		return failed(err)
	case errors.As(err, &te):
		printOutput(env, "where it was when stopped", te.Stack)
		return failed(err)
	case errors.As(err, &re):
		printOutput(env, "the test binary's output", re.Output)
		return failed(err)
	case ctx.Err() != nil:
		return &exitError{code: ExitInterrupted, err: fmt.Errorf("interrupted: %w (what completed is written)", err)}
	}
	return failed(err)
}

func printOutput(env Env, what, out string) {
	if out = strings.TrimRight(out, "\n"); out != "" {
		fmt.Fprintf(env.Stderr, "perflab: %s:\n%s\n", what, out)
	}
}

// goTestFlags are the flags of perflab bench that go test users write with
// one dash.
var goTestFlags = []string{"bench", "count", "benchtime", "cpu", "timeout", "benchmem", "run"}

// withGoTestFlags rewrites `perflab bench -bench X -count 6` (go test's
// spelling) into the double-dash flags perflab's parser reads; the other
// commands' arguments are left as they are.
func withGoTestFlags(args []string) []string {
	if len(args) == 0 || args[0] != "bench" {
		return args
	}
	out := append([]string(nil), args...)
	for i := 1; i < len(out); i++ {
		a := out[i]
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && len(name) > 1 {
			for _, f := range goTestFlags {
				if name == f {
					out[i] = "-" + a
				}
			}
		}
	}
	return out
}
