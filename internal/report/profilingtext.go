package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// profiling writes, at the top of the verdict, what limits the CPU
// profile: a profiler that was missing (and how to install it), a fallback
// to perf, a JIT without a perf map, a profile that cannot account for the
// CPU measured; then which processes were sampled.
func (p *printer) profiling(pr *runfmt.Profiling) {
	if pr == nil {
		return
	}
	for _, n := range pr.Notes {
		p.f("  Profiling:\t%s\n", wrap(n, 100, "     "))
	}
	if pr.StacksUnreachable != "" && !noted(pr.Notes, pr.StacksUnreachable) {
		p.f("  STACKS DO NOT REACH YOUR CODE:\t%s\n", wrap(pr.StacksUnreachable+"; no finding is ranked from them. Fix: "+pr.StacksRemedy, 100, "     "))
	}
	if pr.NotRepresentative != "" {
		p.f("  NOT REPRESENTATIVE:\t%s\n", wrap(pr.NotRepresentative, 100, "     "))
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
		if w.Remedy != "" && w.NotMeasured == "" {
			line := fmt.Sprintf("%s %s of the CPU: %s", workName(w.Work), units.FormatShare(w.Share), w.Remedy)
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
func profileRepresentative(r *runfmt.Run) bool {
	return r.Profiling == nil || r.Profiling.NotRepresentative == "" && r.Profiling.StacksUnreachable == ""
}

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
	if nr := pr.NotRepresentative; nr != "" && !slices.Contains(r.DegradedReasons, nr) {
		out = append(out, HeadlineLine{Label: "Not representative", Text: nr, Class: "bad"})
	}
	if pr.StacksUnreachable != "" && !noted(pr.Notes, pr.StacksUnreachable) {
		out = append(out, HeadlineLine{Label: "Stacks do not reach your code", Text: pr.StacksUnreachable + ". Fix: " + pr.StacksRemedy, Class: "bad"})
	}
	for _, n := range pr.Notes {
		out = append(out, HeadlineLine{Label: "Profiling", Text: n, Class: "warn"})
	}
	for _, w := range pr.RuntimeWork {
		if w.Remedy == "" {
			continue
		}
		out = append(out, HeadlineLine{Label: "Runtime work", Text: workName(w.Work) + " " + units.FormatShare(w.Share) + " of the CPU: " + w.Remedy})
	}
	return out
}

// noted reports whether a profiling note already says s (the profiler's
// note on stacks that do not reach the user's code quotes their reason).
func noted(notes []string, s string) bool {
	return slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, s) })
}
