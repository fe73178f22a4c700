package report

import (
	"fmt"
	"sort"
	"strings"

	"perflab/internal/prose"
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// profiling writes, at the top of the verdict, what limits the CPU
// profile: a profiler that was missing (and how to install it), a fallback
// to perf, a JIT without a perf map, a profile that cannot account for the
// CPU measured; then which processes were sampled.
func (p *printer) profiling(r *runfmt.Run) {
	pr := r.Profiling
	if pr == nil {
		return
	}
	for _, n := range profilingNotes(r) {
		p.f("  Profiling:\t%s\n", wrap(n, 100, "     "))
	}
	if why, fix, ok := stacksUnreached(r); ok {
		p.f("  STACKS DO NOT REACH YOUR CODE:\t%s\n", wrap(why+"; no finding is ranked from them. Fix: "+fix, 100, "     "))
	}
	if nr := NotRepresentativeText(pr); nr != "" {
		p.f("  NOT REPRESENTATIVE:\t%s\n", wrap(nr, 100, "     "))
	}
	if line := ProcessLine(pr.Processes); line != "" {
		p.f("  Processes:\t%s\n", wrap(line, 100, "     "))
	}
	if pr.ProfilerCPUSeconds > 0 && pr.MeasuredCPUSeconds > 0 {
		p.f("  Sampling cost:\t%s of CPU for the profilers, %s of the service's CPU\n", units.FormatSeconds(pr.ProfilerCPUSeconds), units.FormatShare(pr.ProfilerOverhead))
	}
	p.kernelCost(pr) // ledgertext.go
}

// runtimeWork writes, in the CPU figures, the runtime's own work by kind
// (run.json's profiling.runtime_work): each kind's share of the CPU
// profile and the rest's, so that they add up, then the kinds the
// profile cannot tell with why, and what to do about those that cost
// something.
func (p *printer) runtimeWork(pr *runfmt.Profiling) {
	if pr == nil || len(pr.RuntimeWork) == 0 {
		return
	}
	var shares, unmeasured []string
	rest := 1.0
	for _, w := range pr.RuntimeWork {
		if w.NotMeasured != "" {
			unmeasured = append(unmeasured, workLabel(w.Work)+" not measured ("+w.NotMeasured+")")
			continue
		}
		shares = append(shares, workLabel(w.Work)+" "+units.FormatShare(w.Share))
		rest -= w.Share
	}
	var parts []string
	if len(shares) > 0 {
		shares = append(shares, "the rest (the program's and its libraries' code) "+units.FormatShare(max(rest, 0)))
		parts = append(parts, strings.Join(shares, ", ")+" of the CPU profile")
	}
	parts = append(parts, unmeasured...)
	p.f("  Runtime work:\t%s\n", wrap(strings.Join(parts, "; "), 100, "     "))
	for _, w := range pr.RuntimeWork {
		if rem := prose.WorkRemedy(w); rem != "" && w.NotMeasured == "" {
			line := fmt.Sprintf("%s %s of the CPU: %s", workName(w.Work), units.FormatShare(w.Share), rem)
			p.f("     %s\n", wrap(line, 100, "     "))
		}
	}
}

// workName says a kind of the runtime's own work (run.json's
// profiling.runtime_work[].work) in words, as a sentence starts.
func workName(w string) string {
	switch w {
	case runfmt.WorkJIT:
		return "The JIT compiler"
	case runfmt.WorkGC:
		return "Garbage collection"
	case runfmt.WorkInterpreter:
		return "The interpreter"
	}
	return "Runtime code at the leaf"
}

// workLabel names a kind of the runtime's own work in a list of shares.
func workLabel(w string) string {
	switch w {
	case runfmt.WorkJIT:
		return "JIT compiler"
	case runfmt.WorkGC:
		return "GC"
	case runfmt.WorkInterpreter:
		return "interpreter"
	}
	return "runtime code at the leaf"
}

// ProcessLine lists the sampled processes with their share of the
// profile, busiest first: "3 processes (python): 4242 1.02 s of CPU
// (py-spy), 4243 0.98 s of CPU (py-spy), 4240 0.00 s of CPU (py-spy)".
// Empty for one process.
func ProcessLine(ps []runfmt.ProcessProfile) string {
	if len(ps) < 2 {
		return ""
	}
	ps = append([]runfmt.ProcessProfile(nil), ps...)
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].CPUSeconds > ps[j].CPUSeconds })
	runtimes := map[runfmt.Runtime]bool{}
	var parts []string
	for i, q := range ps {
		if q.Runtime != "" {
			runtimes[q.Runtime] = true
		}
		if i == 8 {
			parts = append(parts, fmt.Sprintf("%d more", len(ps)-i))
			break
		}
		tool := string(q.Profiler)
		if tool == "" {
			tool = "not sampled"
		}
		parts = append(parts, fmt.Sprintf("%d %s of CPU (%s)", q.PID, units.FormatSeconds(q.CPUSeconds), tool))
	}
	var rts []string
	for r := range runtimes {
		rts = append(rts, string(r))
	}
	sort.Strings(rts)
	return fmt.Sprintf("%d processes (%s) in the profile: %s", len(ps), strings.Join(rts, ", "), strings.Join(parts, ", "))
}

// profileRepresentative says whether the run's CPU profile accounts for
// the CPU measured: when it does not, its functions are not the verdict,
// and no report lists them as where the CPU goes.
func profileRepresentative(r *runfmt.Run) bool { return r.Profiling.Explains() }

// profilingLines are the headline lines of what limits the CPU profile,
// for the pages that show the headline and not the text verdict (whose
// "Service" section says the same): the profiling notes, and a profile
// that is not representative unless the status line already says why.
func profilingLines(r *runfmt.Run) []HeadlineLine {
	pr := r.Profiling
	if pr == nil {
		return nil
	}
	var out []HeadlineLine
	if nr := NotRepresentativeText(pr); nr != "" && !degradedNotRepresentative(r) {
		out = append(out, HeadlineLine{Label: "Not representative", Text: nr, Class: "bad"})
	}
	if why, fix, ok := stacksUnreached(r); ok {
		out = append(out, HeadlineLine{Label: "Stacks do not reach your code", Text: why + ". Fix: " + fix, Class: "bad"})
	}
	for _, n := range profilingNotes(r) {
		out = append(out, HeadlineLine{Label: "Profiling", Text: n, Class: "warn"})
	}
	for _, w := range pr.RuntimeWork {
		rem := prose.WorkRemedy(w)
		if rem == "" {
			continue
		}
		out = append(out, HeadlineLine{Label: "Runtime work", Text: workName(w.Work) + " " + units.FormatShare(w.Share) + " of the CPU: " + rem})
	}
	return out
}

// degradedNotRepresentative says whether the status line says why the
// profile is not representative: the run is degraded by its coverage.
func degradedNotRepresentative(r *runfmt.Run) bool {
	for _, d := range r.Degradations {
		if d.Why == runfmt.DegradeNotRepresentative || d.Why == "" && d.Note == r.Profiling.NotRepresentative {
			return true
		}
	}
	return false
}

// profilingNotes are the profiling notes: first, for native code perf
// sampled whose stacks do not reach the user's code, why and what to do
// (a run before schema 5 has it among its notes already), then the notes
// the profilers left.
func profilingNotes(r *runfmt.Run) []string {
	pr := r.Profiling
	st, said := stacksSaid(r)
	if !said || pr.StackReach == nil {
		return pr.Notes
	}
	return append([]string{stacksNote(st)}, pr.Notes...)
}

// stacksSaid is perf's record of the CPU profile's stacks when they do
// not reach the user's code and a process perf sampled runs native code:
// the profiling notes say so then, first, with the CPU per module.
func stacksSaid(r *runfmt.Run) (*runfmt.Stacks, bool) {
	ref, ok := r.SavedProfile(runfmt.ProfileCPU)
	if !ok || ref.Stacks == nil || ref.Stacks.Reach {
		return nil, false
	}
	for _, pp := range r.Profiling.Processes {
		if pp.Profiler == runfmt.ProfilerPerf && pp.Runtime == runfmt.RuntimeNative {
			return ref.Stacks, true
		}
	}
	return nil, false
}

// stacksNote is the note on perf's stacks that do not reach the user's
// code: why, the remedy, and the CPU per module.
func stacksNote(st *runfmt.Stacks) string {
	why, fix := st.Reason, st.Remedy
	if why == "" {
		why, fix = ReachText(&st.StackReach), ReachRemedy(&st.StackReach)
	}
	var mods []string
	for _, m := range st.Modules {
		mods = append(mods, fmt.Sprintf("%s %s", m.Module, units.FormatPct(100*m.Share)))
	}
	n := "the stacks do not reach your code, so no function of yours can be ranked: " + why + "; " + fix
	if len(mods) > 0 {
		n += ". CPU by module: " + strings.Join(mods, ", ")
	}
	return n
}

// stacksUnreached says why the CPU profile's stacks do not reach the
// user's code and what makes them, unless the profiling notes say it
// (stacksSaid); false when they reach it.
func stacksUnreached(r *runfmt.Run) (why, fix string, ok bool) {
	pr := r.Profiling
	if _, said := stacksSaid(r); said {
		return "", "", false
	}
	switch {
	case pr.StackReach != nil:
		return ReachText(pr.StackReach), ReachRemedy(pr.StackReach), true
	case pr.StacksUnreachable != "":
		return pr.StacksUnreachable, pr.StacksRemedy, true
	}
	return "", "", false
}

// NotRepresentativeText says why the CPU profile cannot explain the CPU
// measured that it could have sampled; "" when it can.
func NotRepresentativeText(pr *runfmt.Profiling) string {
	u := pr.Unrepresentative
	if u == nil {
		return pr.NotRepresentative
	}
	profileCPU, measuredCPU, sampled := pr.ProfileCPUSeconds, pr.MeasuredCPUSeconds, pr.SampledCPUSeconds()
	of, what := fmt.Sprintf("%.2f of %.2f CPU-seconds", profileCPU, measuredCPU), "the CPU measured"
	if pr.UnsampledStartCPUSeconds > 0 {
		of = fmt.Sprintf("%.2f of the %.2f CPU-seconds measured less %.2f of start-up before processes were sampled", profileCPU, measuredCPU, pr.UnsampledStartCPUSeconds)
		what = "the CPU it could sample"
	}
	return fmt.Sprintf("the CPU profile accounts for %s of %s (%s, %d samples): "+
		"it cannot say where the service's CPU went, so its functions are not the verdict%s",
		units.FormatPct(100*profileCPU/max(sampled, 1e-9)), what, of, u.Samples, coverageHintText(u))
}

// coverageHintText says what to try when a CPU profile misses most of
// the CPU measured.
func coverageHintText(u *runfmt.Unrepresentative) string {
	switch u.Hint {
	case runfmt.HintEndpoint:
		return " (is the pprof endpoint the service's own, and does the service run more processes?)"
	case runfmt.HintFewSamples:
		return fmt.Sprintf(" (sampled at %d Hz: raise --perf-hz or lengthen the window)", u.HzSampled)
	case runfmt.HintProcesses:
		return " (see the processes in run.json's profiling block: were they all sampled?)"
	}
	return ""
}
