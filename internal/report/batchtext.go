package report

import (
	"fmt"
	"io"
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// batchAtOnceS is how soon a batch program that exits non-zero has
// "exited at once": it refused its input rather than failed at its work,
// and nothing of its run is worth showing but its output.
const batchAtOnceS = 0.5

// ExitedAtOnce says whether the program exited non-zero within half a
// second of its start: its pages show its output only, and perflab's error
// says it ended as soon as it started.
func ExitedAtOnce(b *runfmt.Batch) bool {
	return b.ExitCode != nil && *b.ExitCode != 0 && !b.TimedOut && !b.Interrupted && b.WallS < batchAtOnceS
}

// WriteBatchText writes a batch program's run (perflab run -- CMD without
// a URL): the headline, what the program used (wall time, CPU, the cores
// busy of those it could use, peak RSS, throttling, GC), its threads' time
// by state, what measuring cost, the findings, its hot user functions with
// their lines, its last lines of output and where the run is.
func WriteBatchText(w io.Writer, r *runfmt.Run, dir string) error {
	if err := WriteHeadline(w, r); err != nil {
		return err
	}
	b := r.Batch
	p := &printer{w: w}
	if ExitedAtOnce(b) {
		p.f("\nProgram: %s exited at once (%s, after %s)\n", strings.Join(r.Config.Command, " "), b.ExitStatus, seconds(b.WallS))
		p.lastLines(b.LastLines)
		p.runFiles(r, dir)
		return p.err
	}
	p.f("\nProgram: %s (%s)\n", strings.Join(r.Config.Command, " "), batchEnd(b))
	p.f("  Wall time:\t%s\n", seconds(b.WallS))
	p.f("  CPU:\t%s (user %s, system %s)", seconds(b.CPUS), seconds(b.UserS), seconds(b.SystemS))
	if b.RunnableSource != "" {
		p.f("; %s waiting for a CPU (%s)", seconds(b.RunnableS), b.RunnableSource)
	}
	p.f("\n")
	p.f("  Cores:\t%s\n", BatchCoresText(b))
	p.f("  Peak RSS:\t%s\n", units.FormatBytes(float64(b.RSSMaxBytes)))
	if b.Cores.BudgetCores > 0 {
		p.f("  Throttled:\t%s of periods (%s)\n", units.FormatPct(b.ThrottledPct), seconds(b.ThrottledS))
	}
	if b.GCPct != nil {
		p.f("  GC:\t%s of its CPU (the CPU profile)\n", units.FormatPct(*b.GCPct))
	}
	p.runtimeWork(r.Profiling)
	p.f("  Threads:\t%s\n", wrap(BatchThreadsText(b), 90, "    "))
	if c := b.Cost; c != nil {
		p.f("  Measuring:\t%s\n", BatchCostText(c))
	}
	p.findings(r.Findings, r.Answer)
	p.batchHot(r.Hot)
	p.lastLines(b.LastLines)
	p.runFiles(r, dir)
	return p.err
}

// lastLines writes the program's last lines of output.
func (p *printer) lastLines(lines []string) {
	if len(lines) == 0 {
		p.f("\nIt printed nothing.\n")
		return
	}
	p.f("\nIts last lines of output (all in target.log):\n")
	for _, l := range lines {
		p.f("  %s\n", l)
	}
}

// batchEnd says how the program ended: "exit status 0", "stopped at
// --timeout 10m0s (killed by signal 15)".
func batchEnd(b *runfmt.Batch) string {
	switch {
	case b.TimedOut:
		return fmt.Sprintf("ran past --timeout %s: %s", seconds(b.TimeoutS), b.ExitStatus)
	case b.Interrupted:
		return "interrupted: " + b.ExitStatus
	case b.ExitStatus == "":
		return "did not run"
	}
	return b.ExitStatus
}

// BatchCoresText is the cores a batch program kept busy against those it
// could use and its budget.
func BatchCoresText(b *runfmt.Batch) string {
	c := b.Cores
	busy := fmt.Sprintf("%.2f busy", b.CoresMean)
	if b.Busy != nil {
		busy += fmt.Sprintf(" (%.2f threads on a CPU or waiting for one, on average)", *b.Busy)
	}
	limits := []string{fmt.Sprintf("host %d", c.Host), fmt.Sprintf("cpuset %d", c.CPUSet)}
	if c.GOMAXPROCS > 0 {
		limits = append(limits, fmt.Sprintf("GOMAXPROCS %d (%s)", c.GOMAXPROCS, c.GOMAXPROCSSource))
	}
	budget := "no CPU budget"
	if c.BudgetCores > 0 {
		budget = fmt.Sprintf("a %g-core budget", c.BudgetCores)
	}
	return fmt.Sprintf("%s of %d it could use (%s); %s", busy, c.Usable, strings.Join(limits, ", "), budget)
}

// BatchThreadsText is the threads' time by state, each with its share of
// the whole, and the CPU the kernel's switch-outs did not see; or why it
// was not measured.
func BatchThreadsText(b *runfmt.Batch) string {
	th := b.Threads
	if th == nil {
		return b.ThreadsNote
	}
	var total float64
	for _, s := range th.States {
		total += s.Seconds
	}
	var parts []string
	for _, s := range th.States {
		if s.Seconds == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s (%s)", s.State, seconds(s.Seconds), units.FormatPct(100*s.Seconds/total)))
	}
	procs := ""
	if th.Processes > 1 {
		procs = fmt.Sprintf(" in %d processes", th.Processes)
	}
	out := fmt.Sprintf("%s; %s in all, summed over its threads%s (the kernel's scheduler)", strings.Join(parts, ", "), seconds(total), procs)
	if th.NotSeenCPUS > 0 {
		out += fmt.Sprintf("; %s of CPU before threads' first switch, not split", seconds(th.NotSeenCPUS))
	}
	if th.Dropped > 0 {
		out += fmt.Sprintf("; %d records lost (kernel tables full)", th.Dropped)
	}
	return out
}

// BatchCostText is what measuring a batch program cost; a part not
// measured says why instead of a figure.
func BatchCostText(c *runfmt.BatchCost) string {
	part := func(cpuS float64, note string) string {
		if note != "" {
			return note
		}
		return seconds(cpuS)
	}
	return fmt.Sprintf("%s of its CPU (perf %s, kernel tracing %s, perflab's samplers %s)",
		units.FormatPct(c.Pct), part(c.ProfilerCPUS, c.ProfilerNote), part(c.KernelCPUS, c.KernelNote), seconds(c.PerflabCPUS))
}

// seconds formats a time given in seconds as every time per request is.
func seconds(s float64) string { return units.FormatMicros(s * 1e6) }

// batchHot writes the user functions that cost the most of the run.
func (p *printer) batchHot(hot []runfmt.HotFunc) { p.userHot(hot, "CPU in the run") }
