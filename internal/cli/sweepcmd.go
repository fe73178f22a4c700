package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"perflab/internal/compare"
	"perflab/internal/lab"
	"perflab/internal/report"
	"perflab/internal/runfmt"
)

func newSweepCmd(env Env) *cobra.Command {
	f := newRunFlags()
	var runs int
	var failOn string
	var out reportFlags
	cmd := &cobra.Command{
		Use:   "sweep --env NAME=V1,V2,... [--runs N] [run flags] URL -- CMD ARGS...",
		Short: "Run the same experiment for each value of an environment variable and compare them side by side",
		Long: `Run CMD once per value of the swept environment variable (GOGC, GOMAXPROCS,
a feature flag...), --runs times each, round-robin over the values, every one a
full 'perflab run' under the same load and budget. Then print, per value, CPU
per request against peak memory, throughput, p99 and the GC's share, each with
its change against the first value ("~" not significant, "?" too few runs).

The first --env names the variable and its comma-separated values; any further
--env KEY=VALUE is set on every run. Ctrl-C stops after the run under way and
compares what finished.`,
		Example: `  perflab sweep --env GOGC=100,400,2000 --cpus 2 -c 16 -d 10s http://127.0.0.1:8080/ -- ./server
  perflab sweep --env GOMAXPROCS=1,2,4 --runs 4 --cpus 2 http://127.0.0.1:8080/ -- ./server`,
		RunE: func(cmd *cobra.Command, args []string) error {
			urls, command, err := splitDash(cmd, args)
			if err != nil {
				return err
			}
			if len(command) == 0 {
				return usageErr("sweep launches the service: give its command after --")
			}
			if len(f.env) == 0 {
				return usageErr("give the variable to sweep: --env NAME=V1,V2,... (e.g. --env GOGC=100,400,2000)")
			}
			name, values, err := parseSweep(f.env[0])
			if err != nil {
				return err
			}
			f.env = f.env[1:]
			ths, err := compare.ParseFailOn(failOn)
			if err != nil {
				return usageErr("%v", err)
			}
			c, err := f.config(env, urls, command)
			if err != nil {
				return err
			}
			pgoAt, err := f.pgo.pick(values)
			if err != nil {
				return err
			}
			if err := f.pgo.check(cmd.Flags(), c); err != nil {
				return err
			}
			f.hooks(env, &c)
			stopNote := context.AfterFunc(cmd.Context(), func() {
				fmt.Fprintln(env.Stderr, "perflab: stopping after the run under way (Ctrl-C again interrupts it, and it is kept as partial)")
			})
			defer stopNote()
			groups, err := lab.Sweep(cmd.Context(), c, name, values, runs, runLine(env, runs))
			return f.pgo.write(env, f.quiet, " of "+name+"="+values[pgoAt], groupAt(groups, pgoAt), finishExperiment(env, err, func() error {
				return printSweep(env, &out, out.markdownOptions(env, f.dir), sweepSpec{name, values, ths}, groups)
			}))
		},
	}
	f.addTo(cmd)
	f.registerForce(cmd)
	cmd.Flags().Lookup("env").Usage = "first: the variable to sweep, `NAME=V1,V2,...`; then KEY=VALUE set on every run (repeatable)"
	flagSet{cmd.Flags()}.int(&runs, "runs", "", DefaultABRuns, 1, maxRuns, "runs of each value")
	flagSet{cmd.Flags()}.checked(&failOn, "fail-on", "", "", "thresholds", checkFailOn, "exit 1 when a value changes a metric significantly beyond a `threshold` against the first value, e.g. \"rss_max>+50%,p99>+10%\"")
	out.register(cmd, "print the comparisons as JSON")
	f.pgo.registerValue(cmd.Flags())
	return cmd
}

// parseSweep parses NAME=V1,V2,....
func parseSweep(spec string) (string, []string, error) {
	name, list, ok := strings.Cut(spec, "=")
	if !ok || name == "" {
		return "", nil, usageErr("--env %q: want NAME=V1,V2,... (e.g. GOGC=100,400,2000)", spec)
	}
	values := strings.Split(list, ",")
	if len(values) < 2 {
		return "", nil, usageErr("--env %q: give at least two values to compare, e.g. %s=%s,OTHER", spec, name, list)
	}
	for _, v := range values {
		if v == "" {
			return "", nil, usageErr("--env %q: empty value (stray comma?)", spec)
		}
	}
	return name, values, nil
}

// sweepSpec is what a sweep varied and the rules it is held to.
type sweepSpec struct {
	name   string
	values []string
	failOn []compare.Threshold
}

// printSweep compares each value's runs with the first value's; a violated
// --fail-on ends with exit 1.
func printSweep(env Env, out *reportFlags, mopt report.MarkdownOptions, sp sweepSpec, groups [][]*lab.Result) error {
	var values, warnings []string
	var kept [][]*lab.Result
	for i, g := range groups {
		if len(g) > 0 {
			values = append(values, sp.values[i])
			kept = append(kept, g)
		} else {
			warnings = append(warnings, fmt.Sprintf("%s=%s: no finished run", sp.name, sp.values[i]))
		}
	}
	if len(kept) < 2 {
		return errNothing
	}
	var steps []runfmt.Comparison
	for i := 1; i < len(kept); i++ {
		res, err := compare.Compare(entries(kept[0]), entries(kept[i]), compare.Options{
			BaseLabel: sp.name + "=" + values[0], NewLabel: sp.name + "=" + values[i],
			Expected: []string{"env:" + sp.name}, FailOn: sp.failOn,
		})
		if err != nil {
			return failed(err)
		}
		steps = append(steps, *res.Comparison)
	}
	c := compare.Sweep(sp.name, values, steps, warnings)
	if err := out.print(env, out.comparisonViews(c, mopt, func(w io.Writer) error { return report.WriteSweepText(w, c) })); err != nil {
		return err
	}
	if len(c.Failed) > 0 {
		fmt.Fprintf(env.Stderr, "perflab: --fail-on: %s regressed significantly beyond the threshold\n", strings.Join(c.Failed, ", "))
		return &silentExit{code: ExitRegression}
	}
	return nil
}
