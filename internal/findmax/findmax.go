package findmax

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"time"

	"perflab/internal/decide"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/service"
	"perflab/internal/session"
	"perflab/internal/units"
)

// Config tunes the search for the highest sustainable rate.
type Config struct {
	SLO decide.SLO
	// Step is the measured window of each step. Default 5s.
	Step time.Duration
	// Start is the first rate tried; 0 estimates it from a closed-model probe.
	Start float64
	// Precision ends the bisection when the bracket is this narrow (relative).
	Precision float64
	// MaxSteps bounds the whole search.
	MaxSteps int
	// OnStep is called after each step (for printing).
	OnStep func(runfmt.FindMaxStep)
}

// Search is the measure stage of a find-max run: on the service the
// session started, it searches the highest arrival rate it sustains within
// the SLO: rates grow by half each step until one fails, then the bracket
// is bisected. A step passes when its latency and errors meet the SLO and
// it achieved at least 95% of its rate. The run keeps every step and, as
// its load and target, the best passing step.
func Search(ctx context.Context, s *session.Session, fm Config) error {
	if fm.Step <= 0 {
		fm.Step = 5 * time.Second
	}
	if fm.Precision <= 0 {
		fm.Precision = 0.05
	}
	if fm.MaxSteps <= 0 {
		fm.MaxSteps = 12
	}
	rate := fm.Start
	if rate <= 0 {
		r, err := probeCapacity(ctx, s)
		if err != nil {
			return err
		}
		rate = math.Max(1, r/2)
		s.Config().Log(fmt.Sprintf("closed-model probe: %.0f req/s; searching from %.0f/s", r, rate))
	}
	result := &runfmt.FindMax{SLO: fm.SLO.String(), StepS: fm.Step.Seconds()}
	s.Record().FindMax = result
	var lo, hi float64 // best passing rate, lowest failing rate
	var best *stepResult
	for n := 0; n < fm.MaxSteps; n++ {
		step, err := step(ctx, s, rate, fm)
		if err != nil {
			return err
		}
		result.Steps = append(result.Steps, step.FindMaxStep)
		if fm.OnStep != nil {
			fm.OnStep(step.FindMaxStep)
		}
		if step.Pass {
			lo, best = rate, &step
		} else {
			hi = rate
		}
		switch {
		case hi == 0:
			rate *= 1.5
		case lo == 0:
			rate /= 2
			if rate < 1 {
				return errors.New("the SLO fails even at 1 request/s")
			}
		case (hi-lo)/lo <= fm.Precision:
			n = fm.MaxSteps
		default:
			rate = (lo + hi) / 2
		}
	}
	if best == nil {
		return errors.New("no step met the SLO")
	}
	result.MaxRPS, result.CPUMsPerRequest = best.Rate, best.CPUMsPerRequest
	s.Record().Load, s.Record().Target, s.Record().Quality = best.load, best.target, best.quality
	result.BelowBudget = belowBudget(best, s.LimitCores(), runtime.NumCPU())
	if result.BelowBudget != "" {
		s.Warn(result.BelowBudget)
	}
	return nil
}

// belowBudgetShare: a highest rate that keeps the service under this share
// of its CPU budget was limited by something else than its CPU.
const belowBudgetShare = 0.5

// belowBudget explains a highest rate that left the service far below its
// CPU budget (or, without one, the host's cores): the bottleneck was the
// load generator, the machine, or the service's own waiting.
func belowBudget(best *stepResult, limit float64, host int) string {
	budget, what := limit, fmt.Sprintf("its %g-core budget", limit)
	if limit <= 0 {
		budget, what = float64(host), fmt.Sprintf("the host's %d cores (no budget)", host)
	}
	if best.target == nil || best.CPUCores >= belowBudgetShare*budget {
		return ""
	}
	msg := fmt.Sprintf("the highest rate, %.0f requests/s, kept the service at %.2f cores, %s of %s: its CPU was not the limit. "+
		"The bottleneck was elsewhere: ", best.Rate, best.CPUCores, units.FormatPct(100*best.CPUCores/budget), what)
	var parts []string
	if q := best.quality; q != nil {
		parts = append(parts, fmt.Sprintf("the load generator (perflab used %.2f cores and waited %s per request for a CPU)", q.PerflabCores, units.FormatMs(q.PerflabWaitMsPerRequest)),
			fmt.Sprintf("the machine (other processes used %.2f of %d cores)", q.OtherCores, q.HostCores))
	} else {
		parts = append(parts, "the load generator", "the machine")
	}
	parts = append(parts, fmt.Sprintf("or the service's own waiting (p99 %s for %s of CPU per request: locks, downstream calls, too few workers)", units.FormatMs(best.P99Ms), units.FormatMs(best.CPUMsPerRequest)))
	return msg + strings.Join(parts, ", ")
}

// stepResult is one step with the load and target measurements behind it.
type stepResult struct {
	runfmt.FindMaxStep
	load    *runfmt.LoadResult
	target  *runfmt.TargetSummary
	quality *runfmt.Quality
}

// probeCapacity estimates the service's throughput with a short closed load.
func probeCapacity(ctx context.Context, s *session.Session) (float64, error) {
	pc := s.Config().Load
	pc.Rate, pc.Stages, pc.Duration, pc.Requests = 0, nil, 3*time.Second, 0
	r, _, err := s.RunLoad(ctx, pc)
	if err != nil {
		return 0, s.Exited("the capacity probe")
	}
	if r.Requests == 0 || r.Errors == r.Requests {
		return 0, fmt.Errorf("the capacity probe got no successful response (%s)", report.MainErrorKind(r))
	}
	return r.RPS, ctx.Err()
}

func step(ctx context.Context, s *session.Session, rate float64, fm Config) (stepResult, error) {
	sc := s.Config().Load
	sc.Rate, sc.Stages, sc.Duration, sc.Requests = rate, nil, fm.Step, 0
	r, a, err := s.RunLoad(ctx, sc)
	if err != nil {
		return stepResult{}, s.Exited(fmt.Sprintf("the step at %.0f/s", rate))
	}
	if ctx.Err() != nil {
		return stepResult{}, fmt.Errorf("%w during the search", session.ErrInterrupted)
	}
	st := stepResult{}
	st.FindMaxStep = runfmt.FindMaxStep{Rate: rate, RPS: r.RPS, P99Ms: r.Latency.P99, Requests: r.Requests, Errors: r.Errors}
	st.Pass, st.Reason = fm.SLO.Check(r)
	if st.Pass && r.RPS < 0.95*rate {
		st.Pass, st.Reason = false, fmt.Sprintf("achieved %.0f/s of %.0f/s", r.RPS, rate)
	}
	if smp := s.Sampler(); smp != nil {
		from := a.Started()
		ts := service.Window(smp.Samples(), from, from.Add(time.Duration(r.DurationS*float64(time.Second))), s.LimitCores(), runtime.NumCPU())
		if n := r.Answered(); n > 0 {
			ts.CPUMsPerRequest = ts.CPUSeconds * 1000 / float64(n)
		}
		st.CPUCores, st.CPUMsPerRequest, st.target = ts.CPUCoresMean, ts.CPUMsPerRequest, &ts
		decide.AddTargetSeries(r.Series, smp.Samples(), from)
	}
	st.load = r
	from := a.Started()
	if st.quality = decide.Quality(s.Machine(), from, from.Add(time.Duration(r.DurationS*float64(time.Second))), st.target, r); st.quality != nil {
		st.Measurement = st.quality.Verdict
	}
	return st, nil
}
