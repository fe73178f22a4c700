package cli

import (
	"errors"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"perflab/internal/lab"
	"perflab/internal/report"
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
	v := flagSet{fs}
	v.checked(&f.slo, "slo", "", "", "slo", checkSLO, "objectives checked at the end (exit 4 when one is missed), and what --find-max searches within (default "+defaultFindMaxSLO+"): `METRIC<LIMIT,...` (p50..p999, max, mean in ms; errors in %)")
	v.duration(&f.step, "step", "", 5*time.Second, 100*time.Millisecond, 24*time.Hour, "--find-max: measured window of each rate tried")
	v.float(&f.start, "start-rate", "", 0, 0, maxRateFlag, "--find-max: first rate to try (default: half of a closed-model probe)")
}

// checkSLO accepts an SLO. An empty one is refused: given on purpose it
// would switch the gate off without a word (an unset shell variable).
func checkSLO(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("empty: give objectives like p99<100ms,errors<1%, or leave --slo out")
	}
	_, err := lab.ParseSLO(s)
	return err
}

// findMaxOrCheck runs the find-max steps when --find-max is given (found
// is then true); otherwise it sets c's SLO and checks --pgo for the run.
func findMaxOrCheck(cmd *cobra.Command, env Env, c *lab.Config, fm findMaxFlags, f *runFlags) (found bool, err error) {
	if fm.enabled {
		if f.pgo.path != "" {
			return true, usageErr("--pgo with --find-max: its steps load the service beyond what it serves, not as it runs; take the profile with a run at the load you ship for")
		}
		return true, runFindMax(cmd, env, *c, fm, f)
	}
	if c.SLO, err = parseSLO(fm.slo); err != nil {
		return false, err
	}
	return false, f.pgo.check(cmd.Flags(), *c)
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
	if c.Load.Rate > 0 || len(c.Load.Stages) > 0 {
		return usageErr("--find-max chooses the rates itself: drop --rate/--stages")
	}
	// The steps are printed as they are measured: on stdout as the text
	// result, on stderr beside --format json, whose run.json (its find_max
	// holds every step) ends the search.
	table := report.FindMaxTable{W: env.Stdout, SLO: slo.String()}
	asJSON := f.out.format.is(formatJSON)
	if asJSON {
		table.W = env.Stderr
	}
	if err := table.Header(fm.step.String()); err != nil {
		return failed(err)
	}
	res, err := lab.FindMax(cmd.Context(), c, lab.FindMaxConfig{SLO: slo, Step: fm.step, Start: fm.start,
		OnStep: func(st runfmt.FindMaxStep) { _ = table.Step(st) }})
	var werr error
	if res != nil && res.Run.FindMax != nil && res.Run.FindMax.MaxRPS > 0 {
		werr = table.Done(res.Run, res.Dir, c.Budget.CPUs)
	}
	if res != nil && asJSON && werr == nil {
		werr = writeJSON(env.Stdout, res.Run)
	}
	if err != nil {
		if res == nil {
			if interrupted(err) {
				return &exitError{code: ExitInterrupted, err: err}
			}
			return failed(err)
		}
		return runError(res, err)
	}
	if werr != nil {
		return failed(werr)
	}
	return nil
}
