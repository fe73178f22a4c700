package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"perflab/internal/compare"
	"perflab/internal/lab"
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// DefaultABRuns is the default number of runs per side of ab and sweep: 4
// a side are the least for which the Mann–Whitney U test can reach
// p <= 0.05, and benchmath needs 6 for a 95% confidence interval.
const DefaultABRuns = 6

// maxRuns bounds --runs of ab and sweep.
const maxRuns = 1000

func newABCmd(env Env) *cobra.Command {
	f := newRunFlags()
	var cf compareFlags
	var baseCmd, newCmd string
	var runs int
	var g gitFlags
	cmd := &cobra.Command{
		Use:   "ab --base CMD --new CMD [--runs N] [run flags] URL | ab --git BASE..NEW [--build CMD] [run flags] URL -- CMD",
		Short: "Run two builds interleaved (A B A B ...) under the same load and budget, then compare them",
		Long: `Run the base and the new command alternately, --runs times each, every one a
full 'perflab run' under the same load, budget and profiling, then compare the
two groups as 'perflab compare' does. Interleaving spreads the machine's drift
over both sides. Without a URL or --targets the commands are batch programs, each run once
per run and measured until it exits (as 'perflab run -- CMD'): wall time, CPU
and peak RSS are compared, and the functions' CPU per run. A batch run whose
program fails (exits non-zero, is killed by a signal, or runs past --timeout)
is kept but not compared: ab compares the runs that completed, says how many
failed, and exits 3 (without a comparison when a side has none left).
CMD strings are split like a shell does (quotes and
backslashes). Ctrl-C stops after the run under way and compares what finished.

With --git BASE..NEW the two sides are revisions of a git repository: each is
checked out into a temporary worktree and built once with --build ({out} is
where the binary goes), then the command after -- runs each side ({out} is
its binary, the worktree its directory); without a URL that command is a
batch program, as with --base/--new. The worktrees and builds are removed
however ab ends. Uncommitted changes are measured only with --uncommitted.`,
		Example: `  perflab ab --base "./server-old -addr :8080" --new "./server -addr :8080" --cpus 1 -c 8 -d 10s http://127.0.0.1:8080/
  perflab ab --base "./svc -mode=buggy" --new "./svc -mode=fixed" --runs 5 --fail-on "cpu_per_request>+5%" http://127.0.0.1:8080/
  perflab ab --git main..HEAD --build "go build -o {out} ./cmd/server" --fail-on "cpu_per_request>+10%" --md summary.md http://127.0.0.1:8080/ -- {out} -addr 127.0.0.1:8080
  perflab ab --base "./trace -mode serial" --new "./trace -mode fanout" --fail-on "wall_time>+5%"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := g.check(cmd.Flags()); err != nil {
				return err
			}
			if g.rng.set {
				return runABGit(cmd, env, f, cf, &g, args, runs)
			}
			if cmd.ArgsLenAtDash() >= 0 {
				return usageErr("ab takes the commands from --base and --new, not after --")
			}
			baseArgv, err := splitCommand("--base", baseCmd)
			if err != nil {
				return err
			}
			newArgv, err := splitCommand("--new", newCmd)
			if err != nil {
				return err
			}
			if err := checkProgram("--base", baseArgv); err != nil {
				return err
			}
			if err := checkProgram("--new", newArgv); err != nil {
				return err
			}
			if !f.load.given(args) {
				return runABBatch(cmd, env, f, cf, batchSides{[2][]string{baseArgv, newArgv}, runs}) // batch programs: no load
			}
			opt, err := cf.options()
			if err != nil {
				return err
			}
			bc, err := f.config(env, args, baseArgv)
			if err != nil {
				return err
			}
			nc, err := f.config(env, args, newArgv)
			if err != nil {
				return err
			}
			if err := f.pgo.check(cmd.Flags(), pickSide(f.pgo.side, bc, nc)); err != nil {
				return err
			}
			f.hooks(env, &bc)
			f.hooks(env, &nc)
			cf.runsDir = f.dir
			bc.Force, nc.Force = cf.force, cf.force
			if f.name == "" {
				bc.Name = sharedName(bc.Name, nc.Name)
			}
			nc.Name = bc.Name
			stopNote := context.AfterFunc(cmd.Context(), func() {
				fmt.Fprintln(env.Stderr, "perflab: stopping after the run under way (Ctrl-C again interrupts it, and it is kept as partial)")
			})
			defer stopNote()
			b, n, err := lab.AB(cmd.Context(), bc, nc, runs, runLine(env, runs))
			opt.Expected = []string{"command"}
			return f.pgo.write(env, f.quiet, " of the "+f.pgo.side+" side", pickSide(f.pgo.side, b, n), finishExperiment(env, err, func() error {
				if len(b) == 0 || len(n) == 0 {
					return errNothing
				}
				return runCompare(env, entries(b), entries(n), opt, cf)
			}))
		},
	}
	f.addTo(cmd)
	v := flagSet{cmd.Flags()}
	v.checked(&baseCmd, "base", "", "", "command", nonEmpty, "the base build's command line (required)")
	v.checked(&newCmd, "new", "", "", "command", nonEmpty, "the new build's command line (required)")
	flagSet{cmd.Flags()}.int(&runs, "runs", "", DefaultABRuns, 1, maxRuns, "runs of each side")
	cf.register(cmd)
	g.register(cmd.Flags())
	f.pgo.registerSide(cmd.Flags())
	return cmd
}

var errNothing = errors.New("no finished runs on both sides to compare")

// failedRunNotes lead the comparison of an A/B of batch programs whose
// program failed in some runs of a side: those runs are not compared.
func failedRunNotes(err error) []string {
	var fe *lab.FailedRunsError
	if !errors.As(err, &fe) {
		return nil
	}
	var out []string
	for _, f := range fe.Sides {
		out = append(out, f.String())
	}
	return out
}

// checkBatchFailOn refuses a --fail-on rule on a metric batch programs'
// runs do not have (p99 of requests they never answer): it could never
// fire.
func checkBatchFailOn(opt compare.Options) error {
	have := compare.BatchMetrics()
	for _, t := range opt.FailOn {
		if !slices.Contains(have, t.Metric) {
			return usageErr("--fail-on %s: a batch A/B (no URL) has no %s, the program answers no requests; its metrics are %s",
				t, t.Metric, strings.Join(runfmt.Words(have), ", "))
		}
	}
	return nil
}

// finishExperiment prints the comparison of what finished and maps the
// experiment's error: an interruption exits 130 after the comparison, a
// failed run exits 3 after it.
func finishExperiment(env Env, runErr error, show func() error) error {
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		fmt.Fprintf(env.Stderr, "perflab: %v\n", oneLine(runErr.Error()))
	}
	err := show()
	if errors.Is(err, errNothing) {
		if runErr != nil {
			return &silentExit{code: codeFor(runErr)}
		}
		return failed(err)
	}
	if runErr != nil {
		var se *silentExit
		if errors.As(err, &se) && se.code == ExitRegression {
			return err
		}
		return &silentExit{code: codeFor(runErr)}
	}
	return err
}

func codeFor(err error) ExitCode {
	if interrupted(err) {
		return ExitInterrupted
	}
	return ExitFailed
}

// runLine prints one line to stderr per finished run.
func runLine(env Env, runs int) lab.RunDone {
	return func(arm string, rep int, res *lab.Result, err error) {
		msg := "no run directory"
		if res != nil {
			msg = res.Dir
			if r := res.Run; r.Load != nil {
				msg = fmt.Sprintf("%.0f req/s, p99 %s", r.Load.RPS, units.FormatMs(r.Load.Latency.P99))
				if r.Target != nil && r.Target.CPUMsPerRequest > 0 {
					msg += ", " + units.FormatMs(r.Target.CPUMsPerRequest) + " CPU/request"
				}
				msg += " (" + res.Dir + ")"
			}
		}
		if err != nil {
			msg += ": " + oneLine(err.Error())
		}
		fmt.Fprintf(env.Stderr, "perflab: %s run %d/%d: %s\n", arm, rep+1, runs, msg)
	}
}

// splitCommand splits a command line the way a POSIX shell splits words:
// whitespace separates, single quotes keep everything literal, double quotes
// keep whitespace (backslash escapes ", \, $ and ` inside them), and a
// backslash outside quotes escapes the next character. No expansion is done.
// Hand-written because the standard library has no shell-word splitter and
// this is all ab needs.
func splitCommand(flag, s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch {
			case r == '"':
				quote = 0
			case r == '\\' && i+1 < len(rs) && strings.ContainsRune("\"\\$`", rs[i+1]):
				i++
				cur.WriteRune(rs[i])
			default:
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == '\\':
			if i+1 == len(rs) {
				return nil, usageErr("%s %q: ends with a backslash", flag, s)
			}
			i++
			cur.WriteRune(rs[i])
			inWord = true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, usageErr("%s %q: unterminated %c quote", flag, s, quote)
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, usageErr("%s: give the command line to run, e.g. %s \"./server -addr :8080\"", flag, flag)
	}
	return words, nil
}

// sharedName is the name of an A/B's runs when the two commands' names
// differ (./server-old, ./server-new): what they share, without the
// separator before the part that differs ("server"), else "ab". The sides
// are told apart by the -base and -new the runs' names end with.
func sharedName(base, new string) string {
	if base == new {
		return base
	}
	n := 0
	for n < len(base) && n < len(new) && base[n] == new[n] {
		n++
	}
	if shared := strings.TrimRight(base[:n], "-_."); shared != "" {
		return shared
	}
	return "ab"
}
