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
	queue := b.queueIn + b.queueOut
	switch {
	case b.goTrace:
		r := b.kind(runfmt.TimeRunnable)
		runnable := 0.0
		if r != nil {
			runnable = r.MsPerRequest
		}
		goRunnable := math.Max(runnable-b.queueIn, 0)
		src := []runfmt.LedgerSource{runfmt.LedgerGoTrace}
		parts = append(parts, fmt.Sprintf("the Go trace's runnable time (%s", units.FormatMs(runnable)))
		if b.queueIn > 0 {
			parts[0] += fmt.Sprintf(", less the %s in the queue part: a request's bytes arrive, then its goroutine waits for a P", units.FormatMs(math.Min(b.queueIn, runnable)))
			src = append(src, runfmt.LedgerKernel)
		}
		parts[0] += ")"
		if beyond > 0 {
			parts = append(parts, fmt.Sprintf("its running time beyond the CPU (%s)", units.FormatMs(beyond)))
		}
		if b.ownDelay > 0 {
			parts = append(parts, fmt.Sprintf("the service's own delay inside its downstream wait (%s)", units.FormatMs(b.ownDelay)))
		}
		return goRunnable + beyond + b.ownDelay, src, joinList(parts), true
	case b.spy:
		r := b.kind(runfmt.TimeRunnable)
		spy := 0.0
		if r != nil {
			spy = r.MsPerRequest
		}
		how := fmt.Sprintf("the request threads' time ready to run beyond the CPU measured (%s, waiting for a CPU or the interpreter's lock)", b.in.Time.Source)
		if k := b.k; k != nil && k.SchedWhy == "" {
			if kw := math.Max(b.per(k.Runnable)-queue, 0) + b.ownDelay; kw > spy {
				return kw, []runfmt.LedgerSource{runfmt.LedgerKernel}, kernelHow(queue), true
			}
		}
		return spy + b.ownDelay, []runfmt.LedgerSource{b.runtimeSource()}, how, true
	case b.k != nil && b.k.SchedWhy == "":
		return math.Max(b.per(b.k.Runnable)-queue, 0) + b.ownDelay, []runfmt.LedgerSource{runfmt.LedgerKernel}, kernelHow(queue), true
	case b.in.Target != nil && b.in.Target.CPUSeconds > 0:
		w := math.Max(b.in.Target.RunqueueWaitSeconds*1000/b.n-queue, 0) + b.ownDelay
		return w, []runfmt.LedgerSource{runfmt.LedgerProc}, "the service's threads' run-queue wait (/proc/PID/schedstat) per request", true
	}
	return 0, nil, "", false
}

func kernelHow(queue float64) string {
	s := "the service's threads' time runnable (the kernel's), per request"
	if queue > 0 {
		s += fmt.Sprintf(", less the %s in the queue part, which holds their wake-ups", units.FormatMs(queue))
	}
	return s
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
	return frac, fmt.Sprintf("the cgroup's throttled time (%.2f s, %.1f%% of periods) over its threads' run-queue wait (%.2f s, %s)",
		t.ThrottledSeconds, t.ThrottledPct, runq, from), true, ""
}

func pct(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }
