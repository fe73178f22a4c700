package analysis

import (
	"fmt"
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// Thresholds of a batch program's findings.
const (
	// serialCoresMax: at most this many cores busy on average (CPU over
	// wall time) is one line of work at a time...
	serialCoresMax = 1.3
	// serialCoresMin: ...when at least this many were (below, it mostly
	// waited: not serial work but sleep or I/O).
	serialCoresMin = 0.5
	// serialMinWallS: shorter programs are not judged.
	serialMinWallS = 0.2
	// starvedWaiting: with more than this many threads waiting for a CPU
	// on average, the cores used say more about the machine than about
	// the program.
	starvedWaiting = 0.75
)

// BatchFindings are the findings of a batch program's run from its
// figures: serial work on a machine of several cores, a machine too busy
// to tell, and a CPU budget that held it back. hot are its hot functions
// (user code first), whose first names the work to spread.
func BatchFindings(b *runfmt.Batch, hot []runfmt.HotFunc) []runfmt.Finding {
	var out []runfmt.Finding
	if f, ok := serialFinding(b, hot); ok {
		out = append(out, f)
	}
	if f, ok := starvedFinding(b); ok {
		out = append(out, f)
	}
	if f, ok := budgetFinding(b); ok {
		out = append(out, f)
	}
	return out
}

// waiting is how many of the program's threads waited for a CPU on
// average; false when it was not measured.
func waiting(b *runfmt.Batch) (float64, bool) {
	if b.RunnableSource == "" || b.WallS <= 0 {
		return 0, false
	}
	return b.RunnableS / b.WallS, true
}

// serialFinding: the program kept about one core busy while it could use
// two or more, and was not kept from more by other work on the machine
// or by its budget.
func serialFinding(b *runfmt.Batch, hot []runfmt.HotFunc) (runfmt.Finding, bool) {
	c, cores := b.Cores, b.CoresMean
	w, measured := waiting(b)
	budgeted := c.BudgetCores > 0 && (c.BudgetCores < serialCoresMax+0.2 || b.ThrottledPct >= runfmt.ThrottledNotablePct)
	if c.Usable < 2 || budgeted || b.WallS < serialMinWallS || cores < serialCoresMin || cores > serialCoresMax || w > starvedWaiting {
		return runfmt.Finding{}, false
	}
	f := runfmt.Finding{
		Kind:  runfmt.FindingSerial,
		Title: fmt.Sprintf("serial: %.1f of %d cores busy", cores, c.Usable),
		Share: 1 - cores/float64(c.Usable),
	}
	var d strings.Builder
	fmt.Fprintf(&d, "For the %s it ran, the program used %.2f cores on average (%s of CPU), of the %d it could use (%s)",
		seconds(b.WallS), cores, seconds(b.CPUS), c.Usable, coresText(c))
	if measured {
		fmt.Fprintf(&d, ", and its threads waited for a CPU %.2f at a time on average: more cores were free for it", w)
	} else {
		d.WriteString(" (its wait for a CPU was not measured: other work on the machine may have held it back)")
	}
	d.WriteString(". Its work runs one step after another. ")
	d.WriteString(serialLever(b, hot, &f))
	f.Detail = d.String()
	return f, true
}

// serialLever says how to spread the work, naming the user function that
// does most of it.
func serialLever(b *runfmt.Batch, hot []runfmt.HotFunc, f *runfmt.Finding) string {
	lever := "Split the work over the cores: independent inputs handled by a pool of workers, one per core"
	if b.Cores.GOMAXPROCS > 0 {
		lever = "Split the work over the cores: fan the independent inputs out to runtime.GOMAXPROCS(0) goroutines, each working on its share, and combine their results"
	}
	for _, h := range hot {
		if !h.UserCode {
			continue
		}
		f.Functions = []string{h.Function}
		lever += fmt.Sprintf("; %s does %.0f%% of its CPU", h.Function, h.CumPct)
		if h.AttributedSample != "" {
			lever += fmt.Sprintf(" (most in %s under it)", h.AttributedSample)
		}
		break
	}
	if c := b.Cores; c.BudgetCores > 0 && c.BudgetCores < float64(c.Usable) {
		lever += fmt.Sprintf(". The budget (--cpus %g) caps what more cores can give", c.BudgetCores)
	}
	return lever + "."
}

// starvedFinding: the program's threads waited for a CPU so much that the
// cores it used are the machine's doing.
func starvedFinding(b *runfmt.Batch) (runfmt.Finding, bool) {
	w, ok := waiting(b)
	if !ok || w <= starvedWaiting || b.WallS < serialMinWallS {
		return runfmt.Finding{}, false
	}
	f := runfmt.Finding{
		Kind:  runfmt.FindingCPUContention,
		Title: fmt.Sprintf("waited for a CPU: %.1f threads at a time on average", w),
		Share: b.RunnableS / (b.RunnableS + b.CPUS),
	}
	f.Detail = fmt.Sprintf("Its threads waited %s for a CPU (%s) over its %s, against %s on one: other work on the machine, "+
		"or a budget, held it back, so its wall time and the %.2f cores it used say more about the machine than about the program "+
		"(whether it runs its work one step at a time cannot be told). Measure it alone, or give it CPUs of its own (--service-cpus) "+
		"or a cgroup that the scheduler serves first.", seconds(b.RunnableS), b.RunnableSource, seconds(b.WallS), seconds(b.CPUS), b.CoresMean)
	return f, true
}

// coresText names what bounds the cores: "host 8, cpuset 8, GOMAXPROCS 8".
func coresText(c runfmt.BatchCores) string {
	parts := []string{fmt.Sprintf("host %d", c.Host), fmt.Sprintf("cpuset %d", c.CPUSet)}
	if c.GOMAXPROCS > 0 {
		parts = append(parts, fmt.Sprintf("GOMAXPROCS %d", c.GOMAXPROCS))
	}
	return strings.Join(parts, ", ")
}

// budgetFinding: the CPU quota throttled the program.
func budgetFinding(b *runfmt.Batch) (runfmt.Finding, bool) {
	c := b.Cores
	if c.BudgetCores <= 0 || b.ThrottledPct < runfmt.ThrottledNotablePct {
		return runfmt.Finding{}, false
	}
	f := runfmt.Finding{
		Kind:  runfmt.FindingCPUBound,
		Title: fmt.Sprintf("budget: --cpus %g throttled it in %.0f%% of its periods", c.BudgetCores, b.ThrottledPct),
	}
	f.Detail = fmt.Sprintf("The CPU quota stopped the program for %s of its %s (it used %.2f cores on average): "+
		"it could run faster with a larger --cpus", seconds(b.ThrottledS), seconds(b.WallS), b.CoresMean)
	if quota := max(1, int(c.BudgetCores+0.999)); c.GOMAXPROCS > quota {
		f.Detail += fmt.Sprintf(", or waste less of its quota with GOMAXPROCS=%d (it runs Go code on %d threads for %g cores)", quota, c.GOMAXPROCS, c.BudgetCores)
	}
	f.Detail += "."
	if b.WallS > 0 {
		f.Share = b.ThrottledS / b.WallS
	}
	return f, true
}

// seconds formats a time given in seconds.
func seconds(s float64) string { return units.FormatMicros(s * 1e6) }
