package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"perflab/internal/compare"
	"perflab/internal/lab"
	"perflab/internal/report"
	"perflab/internal/units"
)

// The demo's closing A/B: short enough that the whole demo stays under two
// minutes, and 4 runs a side, the fewest that can give a significant verdict.
const (
	demoABRuns   = 4
	demoABWindow = 2 * time.Second
	demoABWarmup = time.Second
)

// demoAB ends the demo with an A/B of the demo service with its planted
// costs (base) against the same service run with -fixed (new), then prints
// the comparison. api and pprofAddr are the addresses the service listens
// on; f holds the demo's run flags (budget, load, profiler).
func demoAB(cmd *cobra.Command, env Env, f *runFlags, api, pprofAddr string) error {
	base := []string{env.Executable, "demo-service", "-addr", api, "-pprof-addr", pprofAddr}
	fixed := append(append([]string(nil), base...), "-fixed")
	bc, err := f.config(env, demoURLs(api), base)
	if err != nil {
		return err
	}
	bc.Name, bc.Warmup, bc.Load.Duration = "demo-ab", demoABWarmup, demoABWindow
	if bc.LoadFlags != nil {
		bc.LoadFlags["duration"] = demoABWindow.String()
	}
	if f.pprof == "" {
		bc.Pprof = "http://" + pprofAddr
	}
	nc := bc
	nc.Command = fixed
	fmt.Fprintf(env.Stderr, "\nperflab: A/B: the demo service with its planted costs (base) against -fixed (new), %d runs each of %s, interleaved\n", demoABRuns, units.FormatDuration(demoABWindow))
	b, n, err := lab.AB(cmd.Context(), bc, nc, demoABRuns, runLine(env, demoABRuns))
	return finishExperiment(env, err, func() error {
		if len(b) == 0 || len(n) == 0 {
			return errNothing
		}
		res, err := compare.Compare(entries(b), entries(n), compare.Options{
			BaseLabel: "planted", NewLabel: "fixed", Expected: []string{"command"},
		})
		if err != nil {
			return failed(err)
		}
		c := res.Comparison
		err = f.out.format.write(env.Stdout, views{
			formatText: func(w io.Writer) error {
				fmt.Fprintf(w, "\nA/B verdict: the demo service with its planted costs vs -fixed\n\n")
				return report.WriteCompareText(w, c)
			},
			formatJSON: jsonView(c),
		})
		if err != nil {
			return failed(err)
		}
		if demoABRuns < DefaultABRuns && f.out.format.is(formatText) {
			fmt.Fprintf(env.Stdout, "\n(%d runs a side keep the demo short: enough for a significance test, not for\nconfidence intervals; 'perflab ab' runs %d a side by default.)\n", demoABRuns, DefaultABRuns)
		}
		return nil
	})
}
