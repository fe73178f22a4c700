package findings

import (
	"slices"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
)

// AttachWaitLines fills the culprit lines of the wait findings from the
// wall-time profile their figures come from (runfmt.WaitLabel on each
// sample): the lines of the culprit where its requests waited that
// finding's waits (the call to a peer, the sleep), each with its wait per
// request. A finding that has lines keeps them.
func AttachWaitLines(wall *profile.Profile, fs []runfmt.Finding, src *analysis.Sources, uc analysis.UserCode) {
	if wall == nil {
		return
	}
	for i := range fs {
		f := &fs[i]
		waits := waitClasses(f.Kind)
		c, named := f.Culprit()
		us := f.Figures[runfmt.FigWaitPerRequest]
		if len(waits) == 0 || !named || us <= 0 || len(f.Lines) > 0 {
			continue
		}
		req := analysis.LineRequest{Function: c.Function, File: c.File, UsPerRequest: us}
		f.Lines = analysis.CulpritLines(withWaits(wall, waits), []analysis.LineRequest{req}, src, uc)[0]
	}
}

// waitClasses are the waits a wait finding of kind k counts; none for
// other kinds and for the collector's pauses, which have no site.
func waitClasses(k runfmt.FindingKind) []runfmt.Wait {
	for _, w := range waitKinds {
		if w.kind == k && k != runfmt.FindingGCPause {
			return w.classes
		}
	}
	return nil
}

// withWaits is wall with only the samples of the waits given.
func withWaits(wall *profile.Profile, waits []runfmt.Wait) *profile.Profile {
	p := &profile.Profile{SampleType: wall.SampleType, DefaultSampleType: wall.DefaultSampleType, PeriodType: wall.PeriodType, Period: wall.Period,
		Location: wall.Location, Function: wall.Function, Mapping: wall.Mapping, TimeNanos: wall.TimeNanos, DurationNanos: wall.DurationNanos}
	for _, s := range wall.Sample {
		if ls := s.Label[runfmt.WaitLabel]; len(ls) > 0 && slices.Contains(waits, runfmt.Wait(ls[0])) {
			p.Sample = append(p.Sample, s)
		}
	}
	return p
}
