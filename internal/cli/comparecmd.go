package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"perflab/internal/compare"
	"perflab/internal/files"
	"perflab/internal/lab"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// compareFlags are the output flags compare and ab share.
type compareFlags struct {
	html   string
	failOn string
	force  bool
	out    reportFlags
	// runsDir is where the compared runs are kept (named in the markdown).
	runsDir string
	// notes change what the comparison means (ab --git: uncommitted
	// changes not measured): they lead its warnings, --quiet or not.
	notes []string
}

func (cf *compareFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	v := flagSet{fs}
	v.checked(&cf.html, "html", "", "", "file", outputFile, "also write a self-contained HTML page (table and differential flame graph) to `file`")
	v.checked(&cf.failOn, "fail-on", "", "", "thresholds", checkFailOn, "exit 1 when a metric changes significantly beyond a `threshold`, e.g. \"cpu_per_request>+5%,p99>+10%,rps<-5%\" (metrics: "+strings.Join(runfmt.MetricNames.Strings(), ", ")+")")
	fs.BoolVar(&cf.force, "force", false, "compare runs of different URL paths instead of refusing")
	cf.out.register(cmd, "print the comparison as JSON")
}

func checkFailOn(s string) error {
	_, err := compare.ParseFailOn(s)
	return err
}

// options returns the comparison's options.
func (cf *compareFlags) options() (compare.Options, error) {
	ths, err := compare.ParseFailOn(cf.failOn)
	if err != nil {
		return compare.Options{}, usageErr("%v", err)
	}
	return compare.Options{FailOn: ths, Force: cf.force}, nil
}

func newCompareCmd(env Env) *cobra.Command {
	var cf compareFlags
	var dir string
	var bl baselineFlags
	cmd := &cobra.Command{
		Use:   "compare BASE NEW | compare --baseline NAME NEW",
		Short: "Compare two runs or two groups of runs: medians, confidence intervals, significance, per-function changes",
		Long: `Compare BASE with NEW the way benchstat compares benchmarks: for requests/s,
latency p50/p90/p99, CPU ms per request, bytes allocated per request, GC share
and peak RSS, each side's median ± its 95% confidence interval, the change and
the Mann–Whitney U p-value. "~" means no significant change, "?" too few runs
to tell (4 a side are the least that can be significant; 6 give intervals).
Then the functions whose CPU and allocations per request changed most.

BASE and NEW each name one run or a group: a run ID, directory, name (every
run of that name), glob, or a comma-separated list of those. --baseline NAME
makes BASE the newest --last runs named NAME (in --baseline-dir, e.g. runs of
main restored from a CI cache), so a branch needs only its own runs.`,
		Example: `  perflab compare 20250102-150405-svc 20250102-151010-svc
  perflab compare 'svc-base' 'svc-new' --fail-on "cpu_per_request>+5%,p99>+10%"
  perflab compare '*-buggy-*' '*-fixed-*' --html compare.html
  perflab compare --baseline main --baseline-dir ci-baseline --last 6 pr-1234 --fail-on "cpu_per_request>+5%"`,
		// With --baseline, the baseline is BASE.
		Args: func(c *cobra.Command, args []string) error {
			switch {
			case bl.name != "" && len(args) > 1:
				return usageErr("%s: with --baseline, give NEW only (the baseline is BASE)", c.CommandPath())
			case bl.name != "":
				return positional("NEW")(c, args)
			case len(args) == 1:
				return usageErr("%s: missing NEW: compare takes BASE and NEW (or --baseline NAME and NEW)", c.CommandPath())
			}
			return positional("BASE", "NEW")(c, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := bl.check(cmd.Flags()); err != nil {
				return err
			}
			opt, err := cf.options()
			if err != nil {
				return err
			}
			cf.runsDir = dir
			st := store.Store{Root: dir}
			if bl.name != "" || len(args) == 1 {
				return compareBaseline(env, st, &bl, args, opt, cf)
			}
			base, err := resolveGroup(st, args[0])
			if err != nil {
				return err
			}
			new, err := resolveGroup(st, args[1])
			if err != nil {
				return err
			}
			opt.BaseLabel, opt.NewLabel = groupLabel(args[0], "base"), groupLabel(args[1], "new")
			return runCompare(env, base, new, opt, cf)
		},
	}
	cf.register(cmd)
	flagSet{cmd.Flags()}.checked(&dir, "dir", "", store.DefaultRootHelp, "directory", nonEmpty, "`directory` that keeps the runs")
	bl.register(cmd.Flags())
	return cmd
}

// compareBaseline is compare --baseline NAME NEW.
func compareBaseline(env Env, st store.Store, bl *baselineFlags, args []string, opt compare.Options, cf compareFlags) error {
	if bl.name == "" {
		return usageErr("compare takes BASE and NEW (or --baseline NAME and NEW)")
	}
	if len(args) != 1 {
		return usageErr("with --baseline, give NEW only (the baseline is BASE)")
	}
	base, err := bl.runs(st.Root)
	if err != nil {
		return err
	}
	new, err := resolveGroup(st, args[0])
	if err != nil {
		return err
	}
	opt.BaseLabel, opt.NewLabel = bl.label(), groupLabel(args[0], "new")
	return runCompare(env, base, new, opt, cf)
}

// resolveGroup resolves a comma-separated list of run references.
func resolveGroup(st store.Store, refs string) ([]store.Entry, error) {
	es, err := st.ResolveGroup(refs)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return es, nil
}

func groupLabel(ref, def string) string {
	if len(ref) > 24 || strings.Contains(ref, ",") || strings.ContainsRune(ref, os.PathSeparator) {
		return def
	}
	return ref
}

// runCompare compares and prints; a violated --fail-on ends with exit 1.
func runCompare(env Env, base, new []store.Entry, opt compare.Options, cf compareFlags) error {
	if compare.HasBench(base, new) {
		return compareBench(env, base, new, cf)
	}
	res, err := compare.Compare(base, new, opt)
	if errors.Is(err, compare.ErrIncomparable) {
		return usageErr("%v", err)
	}
	if err != nil {
		return failed(err)
	}
	res.Comparison.Warnings = append(append([]string(nil), cf.notes...), res.Comparison.Warnings...)
	return printComparison(env, res, cf)
}

func printComparison(env Env, res *compare.Result, cf compareFlags) error {
	c := res.Comparison
	mopt := cf.out.markdownOptions(env, cf.runsDir)
	mopt.Page = cf.html
	if err := cf.out.print(env, cf.out.comparisonViews(c, mopt, func(w io.Writer) error { return report.WriteCompareText(w, c) })); err != nil {
		return err
	}
	if cf.html != "" {
		if err := writeCompareHTML(cf.html, res); err != nil {
			return failed(err)
		}
		fmt.Fprintf(env.Stderr, "perflab: comparison page: %s\n", cf.html)
	}
	if len(c.Failed) > 0 {
		fmt.Fprintf(env.Stderr, "perflab: --fail-on: %s regressed significantly beyond the threshold\n", strings.Join(c.Failed, ", "))
		return &silentExit{code: ExitRegression}
	}
	return nil
}

func writeCompareHTML(path string, res *compare.Result) error {
	flame, err := res.DiffFlame(report.CompareFlameTitle(res.Comparison))
	if err != nil {
		return fmt.Errorf("--html: %w", err)
	}
	err = files.WriteAtomic(path, func(w io.Writer) error { return report.WriteCompareHTML(w, res.Comparison, flame) })
	if err != nil {
		return fmt.Errorf("--html: %w", err)
	}
	return nil
}

// entries turns finished runs into store entries for compare.
func entries(rs []*lab.Result) []store.Entry {
	var out []store.Entry
	for _, r := range rs {
		out = append(out, store.Entry{Dir: r.Dir, Run: r.Run})
	}
	return out
}
