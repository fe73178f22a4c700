package ledger

import (
	"fmt"
	"math"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// cpuAccount splits the measured CPU per request by owner: the start-up
// of workers started in the window before they were sampled, the
// profile's shares of the CPU it stands for (at most the rest of the
// measured CPU), the rest unexplained. The start-up is measured from
// the processes, not the profile: it is owned even when the profile is
// not (a window of workers recycled every few requests spent half its
// CPU booting them, and its profile held too little of the rest to be
// the verdict). Nil when the service's CPU per request was not
// measured.
func cpuAccount(in Input) *runfmt.CPUAccount {
	t := in.Target
	if t == nil || t.CPUSeconds <= 0 || t.CPUMsPerRequest <= 0 { // no figure per request (other clients)
		return nil
	}
	// Per request of the same count as the measured CPU, so Scale is the
	// run's one scale (runfmt.Run.CPUScale): the measured CPU that could
	// be sampled over the profiled CPU.
	perSecond := t.CPUMsPerRequest / t.CPUSeconds
	unsampled := math.Min(in.CPU.UnsampledStart.Seconds(), t.CPUSeconds)
	a := &runfmt.CPUAccount{MeasuredMs: t.CPUMsPerRequest, Source: t.Source, UnsampledStartMs: perSecond * unsampled}
	a.UnexplainedMs = a.SampledMs()
	if in.CPU.Profiled <= 0 {
		a.NotProfiled = in.CPU.NotProfiled
		if a.NotProfiled == "" {
			a.NotProfiled = "no CPU profile"
		}
		return a
	}
	profiled := perSecond * in.CPU.Profiled.Seconds()
	a.ProfiledMs = &profiled
	a.Scale = (t.CPUSeconds - unsampled) / in.CPU.Profiled.Seconds()
	owned := math.Max(math.Min(profiled, a.MeasuredMs-a.UnsampledStartMs), 0)
	var sum float64
	for _, o := range runfmt.CPUOwners.List() {
		share := in.CPU.Shares[o]
		if share <= 0 {
			continue
		}
		ms := share * owned
		sum += ms
		a.Owners = append(a.Owners, runfmt.CPUShare{Owner: o, MsPerRequest: ms, Pct: 100 * ms / a.MeasuredMs})
	}
	a.UnexplainedMs = math.Max(a.MeasuredMs-a.UnsampledStartMs-sum, 0)
	if profiled > a.SampledMs()*1.05 {
		a.Note = fmt.Sprintf("The profile's samples stand for %s per request, more than the %s measured it could sample: the sampler counted threads ready to run or waiting as running; its shares are applied to what was measured.",
			units.FormatMs(profiled), units.FormatMs(a.SampledMs()))
	}
	return a
}
