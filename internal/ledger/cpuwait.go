package ledger

import (
	"fmt"
	"math"
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// waitingForCPU is the throttled and runnable parts: the requests' time
// waiting for a CPU, split by the share of the threads' run-queue wait
// the cgroup spent throttled. beyond is a Go trace's running time beyond
// the CPU measured.
func (b *builder) waitingForCPU(beyond float64) []*part {
	wait, src, how, ok := b.cpuWait(beyond)
	if !ok {
		why := "no process measured, no runtime's split (" + b.noSplit() + ")"
		return []*part{notMeasured(runfmt.PartThrottled, why), notMeasured(runfmt.PartRunnable, why)}
	}
	frac, fracNote, thrOK, thrWhy := b.throttledShare()
	var throttled *part
	if thrOK {
		throttled = measured(runfmt.PartThrottled, frac*wait, append([]runfmt.LedgerSource{runfmt.LedgerCgroup}, src...)...)
		if frac > 0 {
			throttled.note("%s of the %s waiting for a CPU: %s.", pct(frac), units.FormatMs(wait), fracNote)
		}
	} else {
		throttled = notMeasured(runfmt.PartThrottled, thrWhy)
	}
	runnable := measured(runfmt.PartRunnable, (1-frac)*wait, src...)
	runnable.note("%s.", capitalize(how))
	if q := b.in.Quality; q != nil {
		runnable.row.Processes = q.TopOther
	}
	return []*part{throttled, runnable}
}

// cpuWait is the requests' time waiting for a CPU (ms per request), its
// sources and how it was made.
func (b *builder) cpuWait(beyond float64) (float64, []runfmt.LedgerSource, string, bool) {
	var parts []string
	queued := ""
	if b.queueCPU > 0.0005 {
		queued = fmt.Sprintf("the queue waits that were the service waiting for a CPU (%s)", units.FormatMs(b.queueCPU))
	}
	kernelOK := b.k != nil && b.k.SchedWhy == ""
	switch {
	case b.goTrace:
		runnable := 0.0
		if r := b.kind(runfmt.TimeRunnable); r != nil {
			runnable = r.MsPerRequest
		}
		src := []runfmt.LedgerSource{runfmt.LedgerGoTrace}
		parts = append(parts, fmt.Sprintf("the Go trace's runnable time (%s)", units.FormatMs(runnable)))
		if b.goQueue > 0 {
			parts[0] = fmt.Sprintf("the Go trace's runnable time outside the queue waits (%s)", units.FormatMs(runnable-b.goQueue))
		}
		if queued != "" {
			parts = append(parts, queued)
			src = append(src, runfmt.LedgerKernel)
		}
		if beyond > 0 {
			parts = append(parts, fmt.Sprintf("its running time beyond the CPU (%s)", units.FormatMs(beyond)))
		}
		if b.ownDelay > 0 {
			parts = append(parts, fmt.Sprintf("the service's own delay inside its downstream wait (%s)", units.FormatMs(b.ownDelay)))
		}
		return runnable - b.goQueue + b.queueCPU + beyond + b.ownDelay, src, joinList(parts), true
	case b.spy:
		spy := 0.0
		if r := b.kind(runfmt.TimeRunnable); r != nil {
			spy = r.MsPerRequest
		}
		how := fmt.Sprintf("the request threads' time ready to run beyond the CPU measured (%s, %s: waiting for a CPU or the interpreter's lock)", units.FormatMs(spy), b.in.Time.Source)
		if queued != "" {
			how += " and " + queued
		}
		if kernelOK {
			if kw := b.per(b.k.Runnable); kw > spy+b.queueCPU {
				return kw, []runfmt.LedgerSource{runfmt.LedgerKernel}, kernelHow(), true
			}
		}
		return spy + b.queueCPU, []runfmt.LedgerSource{b.runtimeSource()}, how, true
	case kernelOK:
		return math.Max(b.per(b.k.Runnable), b.queueCPU) + b.ownDelay, []runfmt.LedgerSource{runfmt.LedgerKernel}, kernelHow(), true
	case b.in.Target != nil && b.in.Target.CPUSeconds > 0:
		w := b.in.Target.RunqueueWaitSeconds*1000/b.n + b.ownDelay
		return w, []runfmt.LedgerSource{runfmt.LedgerProc}, "the service's threads' run-queue wait (/proc/PID/schedstat) per request", true
	}
	return 0, nil, "", false
}

func kernelHow() string {
	return "the service's threads' time runnable, from the kernel, per request (the queue waits that were waits for a CPU among it)"
}

// throttledShare is the share of the threads' wait for a CPU that the
// cgroup spent throttled, with how it was made; ok is false (with why)
// when throttling was not measured.
func (b *builder) throttledShare() (frac float64, how string, ok bool, why string) {
	t := b.in.Target
	switch {
	case t == nil || t.CPUSeconds <= 0:
		return 0, "", false, "no process measured (give -- CMD, --pid or --cgroup)"
	case !strings.HasPrefix(t.Source, string(runfmt.LedgerCgroup)):
		return 0, "", false, "the service is in no cgroup perflab reads: its throttling is unknown"
	case t.ThrottledSeconds <= 0:
		return 0, "", true, ""
	}
	runq, from := t.RunqueueWaitSeconds, "/proc/PID/schedstat"
	if k := b.k; k != nil && k.SchedWhy == "" {
		runq, from = k.Runnable.Time.Seconds(), "the kernel's"
	}
	if runq <= 0 {
		return 1, fmt.Sprintf("the cgroup was throttled %.2f s and its threads' run-queue wait is unknown", t.ThrottledSeconds), true, ""
	}
	frac = math.Min(t.ThrottledSeconds/runq, 1)
	return frac, fmt.Sprintf("the cgroup's throttled time (%.2f s, %s of periods) over its threads' run-queue wait (%.2f s, %s)",
		t.ThrottledSeconds, units.FormatPct(t.ThrottledPct), runq, from), true, ""
}

func pct(f float64) string { return units.FormatPct(100 * f) }
