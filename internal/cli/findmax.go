package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"perflab/internal/lab"
	"perflab/internal/runfmt"
)

type findMaxFlags struct {
	enabled bool
	slo     string
	step    time.Duration
	start   float64
}

func (f *findMaxFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.enabled, "find-max", false, "search the highest arrival rate the budget sustains within --slo")
	fs.StringVar(&f.slo, "slo", "", "objectives checked at the end (exit 4 when one is missed), and what --find-max searches within (default "+defaultFindMaxSLO+"): `METRIC<LIMIT,...` (p50..p999, max, mean in ms; errors in %)")
	fs.DurationVar(&f.step, "step", 5*time.Second, "--find-max: measured window of each rate tried")
	fs.Float64Var(&f.start, "start-rate", 0, "--find-max: first rate to try (default: half of a closed-model probe)")
}

func runFindMax(cmd *cobra.Command, env Env, c lab.Config, fm findMaxFlags, f *runFlags) error {
	spec := fm.slo
	if spec == "" {
		spec = defaultFindMaxSLO
	}
	slo, err := parseSLO(spec)
	if err != nil {
		return err
	}
	if fm.step <= 0 || fm.start < 0 {
		return usageErr("--step must be > 0 and --start-rate >= 0")
	}
	if c.Load.Rate > 0 || len(c.Load.Stages) > 0 {
		return usageErr("--find-max chooses the rates itself: drop --rate/--stages")
	}
	fmt.Fprintf(env.Stdout, "Searching the highest rate within %s (steps of %s):\n", slo, fm.step)
	fmt.Fprintf(env.Stdout, "  %10s %10s %10s %8s %10s %12s %8s  %s\n", "rate", "achieved", "p99", "errors", "CPU cores", "CPU ms/req", "machine", "verdict")
	res, err := lab.FindMax(cmd.Context(), c, lab.FindMaxConfig{SLO: slo, Step: fm.step, Start: fm.start,
		OnStep: func(st runfmt.FindMaxStep) {
			verdict := "pass"
			if !st.Pass {
				verdict = "fail: " + st.Reason
			}
			errPct := 0.0
			if st.Requests > 0 {
				errPct = 100 * float64(st.Errors) / float64(st.Requests)
			}
			fmt.Fprintf(env.Stdout, "  %8.0f/s %8.0f/s %8.2fms %7.2f%% %10.2f %12.3f %8s  %s\n", st.Rate, st.RPS, st.P99Ms, errPct, st.CPUCores, st.CPUMsPerRequest, st.Measurement, verdict)
		}})
	if res != nil && res.Run.FindMax != nil && res.Run.FindMax.MaxRPS > 0 {
		m := res.Run.FindMax
		budget := "no CPU limit"
		if c.Budget.CPUs > 0 {
			budget = fmt.Sprintf("%g CPU", c.Budget.CPUs)
		}
		fmt.Fprintf(env.Stdout, "\nHighest sustainable rate: %.0f requests/s on %s within %s, at %.3f CPU ms per request\n", m.MaxRPS, budget, slo, m.CPUMsPerRequest)
		if q := res.Run.Quality; q != nil {
			fmt.Fprintf(env.Stdout, "Measurement: %s\n", q.Summary)
			if q.Noisy() {
				fmt.Fprintf(env.Stdout, "  (a noisy machine moves find-max rates: this rate is not the service's capacity)\n")
			}
		}
		if m.BelowBudget != "" {
			fmt.Fprintf(env.Stdout, "Warning: %s\n", m.BelowBudget)
		}
		fmt.Fprintf(env.Stdout, "Run %s: %s\n", res.Run.ID, res.Dir)
	}
	if err != nil {
		if res == nil {
			return failed(err)
		}
		return failed(fmt.Errorf("find-max run %s is partial: %w", res.Run.ID, err))
	}
	return nil
}
