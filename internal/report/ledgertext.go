package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"perflab/internal/funcname"
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// The ledger's time account ("where the time goes") as text, markdown and
// HTML share it: the measured rows most first, unexplained always, then
// the parts measured at nothing and those not measured, with why.

// ledgerLine is one row of the time account as the renderers show it.
type ledgerLine struct {
	Part    runfmt.LedgerPart
	Ms, Pct float64
	// Detail names the evidence: the peer, the sockets, the site.
	Detail  string
	Sources string
	Note    string
}

// ledgerLines returns the measured rows above zero, most first, and
// unexplained last; zero lists the parts measured at nothing.
func ledgerLines(t *runfmt.TimeAccount) (lines []ledgerLine, zero []string) {
	for _, r := range t.Rows {
		ms, ok := r.Ms()
		switch {
		case !ok:
			continue
		case ms < 0.0005:
			if !slices.Contains(zero, string(r.Part)) {
				zero = append(zero, string(r.Part))
			}
			continue
		}
		lines = append(lines, ledgerLine{Part: r.Part, Ms: ms, Pct: 100 * ms / t.LatencyMs, Detail: rowDetail(r),
			Sources: strings.Join(runfmt.Words(r.Sources), ", "), Note: r.Note})
	}
	slices.SortStableFunc(lines, func(a, b ledgerLine) int { return cmp.Compare(b.Ms, a.Ms) })
	lines = append(lines, ledgerLine{Part: runfmt.PartUnexplained, Ms: t.UnexplainedMs, Pct: 100 * t.UnexplainedMs / t.LatencyMs,
		Detail: "the latency no measured part accounts for"})
	return lines, zero
}

// notMeasured lists the parts not measured with why, a part once.
func notMeasured(t *runfmt.TimeAccount) []string {
	var out []string
	seen := map[runfmt.LedgerPart]bool{}
	for _, r := range t.Rows {
		if _, ok := r.Ms(); ok || seen[r.Part] {
			continue
		}
		seen[r.Part] = true
		out = append(out, fmt.Sprintf("%s (%s)", r.Part, r.NotMeasured))
	}
	return out
}

// rowDetail is a row's evidence in a few words.
func rowDetail(r runfmt.LedgerRow) string {
	var parts []string
	if p := r.Peer; p != nil {
		parts = append(parts, peerText(p))
	}
	if s := r.Socket; s != nil && r.Part == runfmt.PartNetwork && s.Conns > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d connections with Nagle on (TCP_NODELAY off)", s.NagleConns, s.Conns))
	}
	if s := r.Socket; s != nil && s.PerRequest > 0 && r.Part != runfmt.PartNetwork {
		parts = append(parts, fmt.Sprintf("port %s, waits of %s, %.2g per request", joinPorts(s.Ports), units.FormatMs(s.MeanMs), s.PerRequest))
	}
	if len(r.Sites) > 0 {
		s := r.Sites[0]
		site := funcname.Label(s.Function, s.File)
		if s.Callee != "" {
			site += " in " + s.Callee
		}
		parts = append(parts, site)
	}
	if len(r.Processes) > 0 && r.Part == runfmt.PartRunnable {
		var ps []string
		for i, p := range r.Processes {
			if i == 3 {
				break
			}
			ps = append(ps, fmt.Sprintf("%s[%d] %.2f cores", p.Name, p.PID, p.Cores))
		}
		parts = append(parts, "beside "+strings.Join(ps, ", "))
	}
	return strings.Join(parts, "; ")
}

// peerText names a peer, its process and its figures.
func peerText(p *runfmt.LedgerPeer) string {
	s := p.Address
	if p.PID > 0 {
		s += fmt.Sprintf(" %s (pid %d)", p.Name, p.PID)
	}
	switch {
	case p.AnswersNotCounted != "":
		s += ": answers not counted (" + p.AnswersNotCounted + ")"
	case p.Database != "":
		s += fmt.Sprintf(": a %s database, %.3g queries per request answered in %s each", p.Database, p.AnswersPerRequest, units.FormatMs(p.AnswerMs))
	default:
		s += fmt.Sprintf(": answers in %s, %.2g per request", units.FormatMs(p.AnswerMs), p.AnswersPerRequest)
	}
	if p.CPUMsPerRequest != nil {
		s += fmt.Sprintf(", its CPU %s per request", units.FormatMs(*p.CPUMsPerRequest))
	}
	return s
}

func joinPorts(ports []int) string {
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = fmt.Sprint(p)
	}
	return strings.Join(s, ",")
}

// ledgerHeading is the time account's heading: the latency it splits and
// how much of it the parts explain.
func ledgerHeading(t *runfmt.TimeAccount) string {
	s := "mean latency " + units.FormatMs(t.LatencyMs)
	if t.P99Ms > 0 {
		s += ", p99 " + units.FormatMs(t.P99Ms) + " (the split is of the mean)"
	}
	return fmt.Sprintf("%s; explained %s", s, units.FormatPct(t.ExplainedPct))
}

// timeSplit writes where the time goes: the ledger when the run has one,
// else the runtime's split.
func (p *printer) timeSplit(r *runfmt.Run) {
	l := r.Ledger
	if l == nil || l.Time == nil {
		p.timePerRequest(r)
		return
	}
	t := l.Time
	p.f("\nWhere the time goes (%s):\n", ledgerHeading(t))
	lines, zero := ledgerLines(t)
	for _, x := range lines {
		share := fmt.Sprintf("%.1f%%", x.Pct)
		if math.IsNaN(x.Pct) || math.IsInf(x.Pct, 0) {
			share = units.NotANumber // a share of no latency
		}
		row := fmt.Sprintf("  %-11s %10s %7s  %s", x.Part, units.FormatMs(x.Ms), share, x.Detail)
		if x.Sources != "" {
			row += "  [" + x.Sources + "]"
		}
		p.f("%s\n", strings.TrimRight(row, " "))
		if x.Note != "" && x.Pct >= 5 {
			p.f("%14s%s\n", "", wrap(x.Note, 96, strings.Repeat(" ", 14)))
		}
	}
	if len(zero) > 0 {
		p.f("  measured at 0: %s\n", strings.Join(zero, ", "))
	}
	for _, nm := range notMeasured(t) {
		p.f("  not measured: %s\n", wrap(nm, 96, "    "))
	}
	for _, n := range l.Notes {
		p.f("  note: %s\n", wrap(n, 100, "    "))
	}
	if a := l.CPU; a != nil && a.MeasuredMs > 0 {
		p.f("  CPU per request: %s\n", wrap(cpuAccountText(a), 96, "    "))
	}
	if k := l.Kernel; k != nil && k.Unavailable == "" {
		p.f("  Kernel timing: %s\n", kernelText(k))
	}
	if r.Time != nil && r.Time.Scheduler != nil {
		p.f("  Scheduler: %s\n", schedulerText(r.Time.Scheduler))
	}
}

// kernelText is what the kernel timing covered and cost.
func kernelText(k *runfmt.KernelTiming) string {
	procs := fmt.Sprintf("%d processes", k.Processes)
	if k.Processes == 1 {
		procs = "1 process"
	}
	s := fmt.Sprintf("%s, port %s; its programs used %s of CPU (%s of the service's",
		procs, joinPorts(k.Ports), units.FormatMs(k.ProgramCPUSeconds*1000), units.FormatPct(100*k.Overhead))
	if c := k.ProgramCPUCounted; c > 0 && c < 0.995 {
		s += fmt.Sprintf("; counted %s of the time and scaled", units.FormatPct(100*c))
	}
	s += ")"
	if n := droppedTotal(k.Dropped); n > 0 {
		s += fmt.Sprintf("; %d records lost to full tables", n)
	}
	return s
}

func droppedTotal(d map[string]uint64) uint64 {
	var n uint64
	for _, v := range d {
		n += v
	}
	return n
}

// cpuAccountText is the CPU account in one line: measured, profiled, by
// owner and unexplained.
func cpuAccountText(a *runfmt.CPUAccount) string {
	s := units.FormatMs(a.MeasuredMs) + " measured (" + a.Source + ")"
	var owners []string
	if a.UnsampledStartMs > 0 {
		owners = append(owners, fmt.Sprintf("start-up of workers before they were sampled %s (%s)", units.FormatMs(a.UnsampledStartMs), units.FormatPct(100*a.UnsampledStartMs/a.MeasuredMs)))
	}
	if a.ProfiledMs == nil {
		if len(owners) > 0 {
			s += ": " + owners[0] + ", the rest " + units.FormatMs(a.UnexplainedMs)
		}
		return s + "; not profiled: " + a.NotProfiled
	}
	s += "; the profile stands for " + units.FormatMs(*a.ProfiledMs)
	for _, o := range a.Owners {
		owners = append(owners, fmt.Sprintf("%s %s (%s)", o.Owner, units.FormatMs(o.MsPerRequest), units.FormatPct(o.Pct)))
	}
	owners = append(owners, fmt.Sprintf("%s %s (%s)", runfmt.PartUnexplained, units.FormatMs(a.UnexplainedMs), units.FormatPct(100*a.UnexplainedMs/a.MeasuredMs)))
	return s + ": " + strings.Join(owners, ", ")
}

// kernelCost states the kernel timing programs' CPU beside the profilers'.
func (p *printer) kernelCost(pr *runfmt.Profiling) {
	if pr.KernelCPUSeconds > 0 && pr.MeasuredCPUSeconds > 0 {
		p.f("  Timing cost:\t%.3f CPU-s for the kernel timing's programs, %s of the service's CPU\n", pr.KernelCPUSeconds, units.FormatPct(100*pr.KernelOverhead))
	}
}
