package cli

import (
	"context"
	"fmt"
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
			urls, command := splitDash(cmd, args)
			if len(command) == 0 {
				return usageErr("sweep launches the service: give its command after --")
			}
			if runs < 1 {
				return usageErr("--runs %d: want at least 1 (%d or more for a confident verdict)", runs, DefaultABRuns)
			}
			if len(f.env) == 0 {
				return usageErr("give the variable to sweep: --env NAME=V1,V2,... (e.g. --env GOGC=100,400,2000)")
			}
			name, values, err := parseSweep(f.env[0])
			if err != nil {
				return err
			}
			f.env = f.env[1:]
			c, err := f.config(env, urls, command)
			if err != nil {
				return err
			}
			f.hooks(env, &c)
			stopNote := context.AfterFunc(cmd.Context(), func() {
				fmt.Fprintln(env.Stderr, "perflab: stopping after the run under way (Ctrl-C again aborts it)")
			})
			defer stopNote()
			groups, err := lab.Sweep(cmd.Context(), c, name, values, runs, runLine(env, runs))
			return finishExperiment(env, err, func() error { return printSweep(env, f.json, name, values, groups) })
		},
	}
	f.addTo(cmd)
	f.registerForce(cmd)
	cmd.Flags().Lookup("env").Usage = "first: the variable to sweep, `NAME=V1,V2,...`; then KEY=VALUE set on every run (repeatable)"
	cmd.Flags().Lookup("json").Usage = "print the comparisons as JSON"
	cmd.Flags().IntVar(&runs, "runs", DefaultABRuns, "runs of each value")
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

// printSweep compares each value's runs with the first value's.
func printSweep(env Env, asJSON bool, name string, values []string, groups [][]*lab.Result) error {
	s := &runfmt.Sweep{Env: name, Comparisons: []runfmt.Comparison{}}
	var kept [][]*lab.Result
	for i, g := range groups {
		if len(g) > 0 {
			s.Values = append(s.Values, values[i])
			kept = append(kept, g)
		} else {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s=%s: no finished run", name, values[i]))
		}
	}
	if len(kept) < 2 {
		return errNothing
	}
	for i := 1; i < len(kept); i++ {
		res, err := compare.Compare(entries(kept[0]), entries(kept[i]), compare.Options{
			BaseLabel: name + "=" + s.Values[0], NewLabel: name + "=" + s.Values[i],
			Expected: []string{"env:" + name},
		})
		if err != nil {
			return failed(err)
		}
		s.Comparisons = append(s.Comparisons, *res.Comparison)
	}
	var err error
	if asJSON {
		err = writeJSON(env.Stdout, s)
	} else {
		err = report.WriteSweepText(env.Stdout, s)
	}
	if err != nil {
		return failed(err)
	}
	return nil
}
