package report

import (
	"fmt"
	"strings"

	"perflab/internal/runfmt"
)

// addLinks links each finding and hot function to its frame in a flame
// graph and to its source: in the UI, to its flame graph page; in a report
// on its own, to the embedded flame graph (the page's script zooms it to
// the frame). A finding's source link leads to its culprit lines in the
// page (run.json keeps them, read when the run was measured), else to the
// UI's source view (opt.SourceURL); a hot function's to the source view.
func (v *htmlView) addLinks(opt HTMLOptions) {
	hasCPU := v.HasFlame || opt.FlameURL != nil
	for i := range v.Findings {
		f := &v.Findings[i]
		if len(f.Functions) == 0 {
			continue
		}
		f.Frame = f.Functions[0]
		switch {
		case f.wait && opt.OffCPUFlameURL != nil:
			f.FlameHref = opt.OffCPUFlameURL(f.Frame)
		case f.wait && v.HasOffFlame:
			f.FlameHref, f.FlameFrame = "#offcpu", "offcpu-frame"
		case f.wait:
		case opt.FlameURL != nil:
			f.FlameHref = opt.FlameURL(f.Frame)
		case hasCPU:
			f.FlameHref, f.FlameFrame = "#flame", "flame-frame"
		}
		switch {
		case hasSource(f.Lines):
			f.SourceHref = fmt.Sprintf("#src-%d", f.Rank)
		case opt.SourceURL != nil:
			f.SourceHref = opt.SourceURL(f.Frame)
		}
	}
	for i := range v.Hot {
		h := &v.Hot[i]
		switch {
		case opt.FlameURL != nil:
			h.FlameHref = opt.FlameURL(h.Function)
		case hasCPU:
			h.FlameHref, h.FlameFrame = "#flame", "flame-frame"
		}
		if opt.SourceURL != nil {
			h.SourceHref = opt.SourceURL(h.Function)
		}
	}
}

func hasSource(ls []htmlLine) bool {
	for _, l := range ls {
		if len(l.Source) > 0 {
			return true
		}
	}
	return false
}

// noFlameReason says why a report has no CPU flame graph: the run saved
// no CPU profile, and a run degraded for want of a profile it needed
// says why in its degraded reasons.
func noFlameReason(r *runfmt.Run) string {
	if p, ok := r.SavedProfile(runfmt.ProfileCPU); ok {
		return "The flame graph could not be drawn from the CPU profile (see the warnings below); " + p.File + " still opens in go tool pprof."
	}
	var why []string
	for _, d := range r.Degradations {
		if noCPUProfile(d) {
			why = append(why, DegradationText(r, d))
		}
	}
	if len(why) > 0 {
		return "No CPU profile: " + strings.Join(why, "; ") + "."
	}
	if r.Status == runfmt.StatusPartial {
		return "No CPU profile: the run stopped before its profile was taken (" + r.PartialReason + ")."
	}
	return "No CPU profile was taken in this run (--profiler none, or no profiler could sample the service: see the warnings below)."
}

// noChartsReason says why a report has no charts: the run measured no load.
func noChartsReason(r *runfmt.Run) string {
	if r.Status == runfmt.StatusPartial && r.PartialReason != "" {
		return "No load was measured: the run stopped before its window (" + r.PartialReason + "), so there is no latency, throughput, CPU or memory to chart."
	}
	return "No load was measured in this run, so there is no latency, throughput, CPU or memory to chart."
}

// noCPUProfile says whether d is why a run has no CPU profile: the CPU
// profile's own, no profiler found, or profiles cut short (a degradation
// of a run before schema 5, its words alone, may be any).
func noCPUProfile(d runfmt.Degradation) bool {
	switch d.Why {
	case "", runfmt.DegradeNoEndpoint, runfmt.DegradeNothingToSample, runfmt.DegradeInterrupted:
		return true
	}
	return d.Profile == runfmt.ProfileCPU
}
