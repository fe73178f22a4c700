package ledger

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// kernelWhy says why a kernel figure is not measured: the session's
// absence, else the figure's own reason.
func (b *builder) kernelWhy(why string) string {
	if b.k == nil {
		if b.in.KernelWhy == "" {
			return "no kernel timing"
		}
		return "no kernel timing: " + b.in.KernelWhy
	}
	return "the kernel did not time it: " + why
}

// kernelNotes says once what the kernel's absence or its drops leave out.
func (b *builder) kernelNotes() {
	if b.k == nil {
		b.notes = append(b.notes, "Not measured without the kernel's timing ("+strings.TrimPrefix(b.kernelWhy(""), "no kernel timing: ")+
			"): accept, queue, network stalls, disk and the peers' answer times; the other parts come from the runtime's split, the cgroup and /proc.")
		return
	}
	var lost []string
	var total uint64
	for _, name := range slices.Sorted(maps.Keys(b.k.Dropped)) {
		if n := b.k.Dropped[name]; n > 0 {
			lost = append(lost, fmt.Sprintf("%s %d", name, n))
			total += n
		}
	}
	if total > 0 {
		b.notes = append(b.notes, fmt.Sprintf("The kernel's tables were full and lost %d records in the window (%s): the parts it measures may be short.", total, strings.Join(lost, ", ")))
	}
}

// runtimeSource is the source of the runtime's split.
func (b *builder) runtimeSource() runfmt.LedgerSource {
	return runfmt.LedgerSource(b.in.Time.Source)
}

// kind returns the runtime split's row of kind k (nil if none).
func (b *builder) kind(k runfmt.TimeKind) *runfmt.TimeRow {
	if !b.goTrace && !b.spy {
		return nil
	}
	return b.in.Time.Kind(k)
}

// sites is the user function a kind's time is spent in.
func sites(r *runfmt.TimeRow) []runfmt.TimeSite {
	if r == nil || r.Top == nil {
		return nil
	}
	return []runfmt.TimeSite{*r.Top}
}

// generator is the generator's part: its send lag, which claims the
// latency first, and its own wait for a CPU, which claims it last. The
// quality block's figure is all of perflab's threads' run-queue wait per
// request; a load runs an event loop per core, each holding its share of
// the requests in flight, and a loop waiting for a CPU delays them all:
// the wait is charged to the requests in flight, as throttling is. It is
// an upper bound (not every perflab thread is a loop), so it claims last.
func (b *builder) generator() (lag, wait *part) {
	l := b.in.Load
	var src []runfmt.LedgerSource
	lagMs := 0.0
	var what []string
	switch {
	case l.Open != nil:
		lagMs = l.Open.SendLagMS.Mean
		src = append(src, runfmt.LedgerLoadClient)
		what = append(what, fmt.Sprintf("open-model arrivals sent late (%s mean send lag)", units.FormatMs(lagMs)))
	case l.Model != "open":
		src = append(src, runfmt.LedgerLoadClient) // the closed model sends at once
	}
	q := b.in.Quality
	charged := 0.0
	if q != nil {
		src = append(src, runfmt.LedgerProc)
		charged = q.PerflabWaitMsPerRequest * b.inFlightPerCore()
		what = append(what, fmt.Sprintf("the generator's threads waiting for a CPU (%s per request, charged to the %.1f requests in flight per core: it claims what the service's parts leave)",
			units.FormatMs(q.PerflabWaitMsPerRequest), b.inFlightPerCore()))
	}
	if len(src) == 0 {
		return notMeasured(runfmt.PartGenerator, "the load's model and the machine were not recorded"), nil
	}
	lag = measured(runfmt.PartGenerator, lagMs, src...)
	if len(what) > 0 {
		lag.note("%s.", capitalize(joinList(what)))
	}
	if charged > 0 {
		wait = measured(runfmt.PartGenerator, charged, runfmt.LedgerProc)
		wait.into = lag
	}
	return lag, wait
}

// inFlightPerCore is the requests in flight (Little's law: throughput ×
// mean latency) per core of the host, at least 1.
func (b *builder) inFlightPerCore() float64 {
	l := b.in.Load
	if l.DurationS <= 0 {
		return 1
	}
	inFlight := b.n / l.DurationS * b.latency / 1000
	cores := 1
	if q := b.in.Quality; q != nil && q.HostCores > 0 {
		cores = q.HostCores
	}
	return math.Max(inFlight/float64(cores), 1)
}

// runtimeWait is a wait of the runtime's split in ms per request (0 when
// the split has none), and whether the split could see it.
func (b *builder) runtimeWait(k runfmt.TimeKind, w runfmt.Wait) (float64, bool) {
	r := b.kind(k)
	if r == nil {
		return 0, b.goTrace
	}
	return r.Waits[w], true
}

func (b *builder) network() *part {
	var ms float64
	var src []runfmt.LedgerSource
	var what []string
	p := &part{row: runfmt.LedgerRow{Part: runfmt.PartNetwork}}
	if k := b.k; k != nil && k.StallsWhy == "" {
		s := k.Sends
		stalls := Stat{Count: s.Stalls.Count + s.NoDelayStalls.Count, Time: s.Stalls.Time + s.NoDelayStalls.Time}
		ms += b.per(stalls)
		src = append(src, runfmt.LedgerKernel)
		p.row.Socket = &runfmt.LedgerSocket{Ports: k.Ports, PerRequest: float64(stalls.Count) / b.n, MeanMs: ms1(stalls.Mean()),
			Conns: s.Conns, NagleConns: s.NagleConns, NoDelayConns: s.NoDelayConns, NagleMs: b.per(s.Stalls)}
		what = append(what, stallText(b.per(s.Stalls), b.per(s.NoDelayStalls), s))
	}
	if w, ok := b.runtimeWait(runfmt.TimeNetwork, runfmt.WaitClient); ok && (b.goTrace || w > 0) {
		ms += w
		src = append(src, b.runtimeSource())
		if w > 0 {
			what = append(what, fmt.Sprintf("%s waiting on the request's own connection (%s: reading its body, writing to the client)", units.FormatMs(w), b.in.Time.Source))
		}
	}
	if len(src) == 0 {
		if body, ok := b.in.Load.Phases["body"]; ok {
			p = measured(runfmt.PartNetwork, body.Mean, runfmt.LedgerLoadClient)
			return p.note("The client's time from a response's headers to its body: a body held back by Nagle's algorithm, or one the service streams as it works (%s).", b.kernelWhy(""))
		}
		why := "no kernel timing"
		if b.k != nil {
			why = b.kernelWhy(b.k.StallsWhy)
		}
		return notMeasured(runfmt.PartNetwork, why)
	}
	p.ms, p.ok, p.row.Sources = ms, true, src
	if len(what) == 0 {
		return p
	}
	return p.note("%s.", capitalize(joinList(what)))
}

// stallText says how the service's responses were held in the kernel,
// with the connections' Nagle settings.
func stallText(nagle, windows float64, s Sends) string {
	conns := fmt.Sprintf("%d connections sent: %d with Nagle's algorithm on, %d with TCP_NODELAY", s.Conns, s.NagleConns, s.NoDelayConns)
	if nagle+windows <= 0 {
		return "no response was held in the kernel after the service wrote it (" + conns + ")"
	}
	return fmt.Sprintf("responses held in the kernel after the service wrote them: %s by Nagle's algorithm (waiting for the client's ACK), %s by full windows (%s)",
		units.FormatMs(nagle), units.FormatMs(windows), conns)
}

func (b *builder) accept() *part {
	k := b.k
	if k == nil || k.BacklogWhy != "" {
		return notMeasured(runfmt.PartAccept, b.kernelWhy(whyOf(k, func(k *Kernel) string { return k.BacklogWhy })))
	}
	p := measured(runfmt.PartAccept, b.per(k.Backlog), runfmt.LedgerKernel)
	p.row.Socket = &runfmt.LedgerSocket{Ports: k.Ports, PerRequest: float64(k.Backlog.Count) / b.n, MeanMs: ms1(k.Backlog.Mean())}
	return p
}

func whyOf(k *Kernel, f func(*Kernel) string) string {
	if k == nil {
		return ""
	}
	return f(k)
}

// queue is the waits to be read of the requests (and, without a Go
// trace, of the peers' answers), less the part that was the service
// waiting for a CPU: a reader asleep when the bytes arrived is woken and
// waits in the run queue (the kernel's mean wait for a CPU, once per read),
// and a goroutine then waits for a P (a Go trace's runnable time). That
// part is in runnable (b.queueCPU); the rest is the service busy.
func (b *builder) queue() *part {
	k := b.k
	if k == nil || k.UnreadWhy != "" {
		return notMeasured(runfmt.PartQueue, b.kernelWhy(whyOf(k, func(k *Kernel) string { return k.UnreadWhy })))
	}
	b.queueIn = b.per(k.Unread)
	total := b.queueIn + b.queueOut
	wake := 0.0
	if k.SchedWhy == "" {
		wake = ms1(k.Runnable.Mean()) * float64(k.Unread.Count+b.outReads) / b.n
	}
	if r := b.kind(runfmt.TimeRunnable); r != nil && b.goTrace {
		b.goQueue = math.Min(r.MsPerRequest, b.queueIn)
	}
	b.queueCPU = math.Min(total, b.goQueue+wake)
	p := measured(runfmt.PartQueue, total-b.queueCPU, runfmt.LedgerKernel)
	p.row.Socket = &runfmt.LedgerSocket{Ports: k.Ports, PerRequest: float64(k.Unread.Count) / b.n, MeanMs: ms1(k.Unread.Mean())}
	var what []string
	if b.queueOut > 0 {
		what = append(what, fmt.Sprintf("requests waited %s to be read, and the peers' answers %s once they had arrived", units.FormatMs(b.queueIn), units.FormatMs(b.queueOut)))
	}
	if b.queueCPU > 0.0005 {
		what = append(what, fmt.Sprintf("%s of those waits were the service waiting for a CPU (woken readers in the run queue%s): in runnable",
			units.FormatMs(b.queueCPU), map[bool]string{true: ", goroutines waiting for a P"}[b.goQueue > 0]))
	}
	if len(what) > 0 {
		p.note("%s.", capitalize(strings.Join(what, "; ")))
	}
	return p
}

// cpu is the cpu part and, with a Go trace, the request goroutines'
// running time beyond the CPU measured (time their threads were held off
// a CPU).
func (b *builder) cpu() (*part, float64) {
	t := b.in.Target
	measuredCPU, known := 0.0, t != nil && t.CPUSeconds > 0
	if known {
		measuredCPU = t.CPUMsPerRequest
	}
	src := b.cpuSource()
	running := b.kind(runfmt.TimeRunning)
	switch {
	case b.goTrace && running != nil && known:
		ms := math.Min(running.MsPerRequest, measuredCPU)
		p := measured(runfmt.PartCPU, ms, runfmt.LedgerGoTrace, src)
		p.row.Sites = sites(running)
		beyond := running.MsPerRequest - ms
		if beyond > 0.0005 {
			p.note("The request goroutines ran %s in the Go trace, %s more than the CPU measured per request: their threads were held off a CPU (runnable or throttled).",
				units.FormatMs(running.MsPerRequest), units.FormatMs(beyond))
		}
		return p, beyond
	case b.goTrace && running != nil:
		p := measured(runfmt.PartCPU, running.MsPerRequest, runfmt.LedgerGoTrace)
		p.row.Sites = sites(running)
		return p.note("The Go trace's running time, with no CPU measured to hold it against: it may hold time its threads were off a CPU."), 0
	case known:
		p := measured(runfmt.PartCPU, measuredCPU, src)
		p.row.Sites = sites(running)
		return p, 0
	}
	return notMeasured(runfmt.PartCPU, "no process measured (give -- CMD, --pid or --cgroup)"), 0
}

// cpuSource is where the service's CPU was read.
func (b *builder) cpuSource() runfmt.LedgerSource {
	if t := b.in.Target; t != nil && strings.HasPrefix(t.Source, string(runfmt.LedgerCgroup)) {
		return runfmt.LedgerCgroup
	}
	return runfmt.LedgerProc
}

func (b *builder) noSplit() string {
	if b.in.TimeWhy != "" {
		return b.in.TimeWhy
	}
	return "no split of the request's time by its runtime"
}

func (b *builder) gc() *part {
	if r := b.kind(runfmt.TimeGC); r != nil && b.goTrace {
		p := measured(runfmt.PartGC, r.MsPerRequest, runfmt.LedgerGoTrace)
		p.row.Waits, p.row.Sites = r.Waits, sites(r)
		b.gcSites(p, r.MsPerRequest)
		return p
	}
	if b.in.Runtime == runfmt.RuntimeGo {
		return notMeasured(runfmt.PartGC, "the Go trace times the GC per request: "+b.noSplit())
	}
	return notMeasured(runfmt.PartGC, "the garbage collector is timed per request in Go traces only")
}

// gcSites charges the gc row's time to the code that allocates, by the
// bytes each user function allocates per request: the collector runs,
// and stops or enlists the goroutines, as often as the heap grows, so a
// goroutine that waited for it is seldom the one that made it run. The
// trace's site (where the waits fell) stays only without an allocation
// profile.
func (b *builder) gcSites(p *part, ms float64) {
	total := b.in.AllocBytes
	if total <= 0 || len(b.in.Allocators) == 0 {
		return
	}
	var sites []runfmt.TimeSite
	var named []string
	for _, a := range b.in.Allocators {
		if a.BytesPerRequest <= 0 {
			continue
		}
		share := math.Min(a.BytesPerRequest/total, 1)
		sites = append(sites, runfmt.TimeSite{Function: a.Function, File: a.File, Callee: a.Callee, MsPerRequest: ms * share, BytesPerRequest: a.BytesPerRequest})
		named = append(named, fmt.Sprintf("%s %s (%s)", a.Function, units.FormatBytes(a.BytesPerRequest), units.FormatPct(100*share)))
	}
	if len(sites) == 0 {
		return
	}
	p.row.Sites = sites
	p.note("Charged to the code by the bytes it allocates per request (of %s, from the allocation profile): %s.", units.FormatBytes(total), joinList(named))
}

// lock is the lock and pool parts.
func (b *builder) lock() []*part {
	r := b.kind(runfmt.TimeSync)
	if r == nil {
		why := "futex waits of the service's threads include idle ones (a pool's parked workers): only a runtime's split charges lock waits to requests (" + b.noSplit() + ")"
		if b.goTrace {
			why = ""
		}
		if why != "" {
			return []*part{notMeasured(runfmt.PartLock, why), notMeasured(runfmt.PartPool, why)}
		}
		return []*part{measured(runfmt.PartLock, 0, runfmt.LedgerGoTrace), measured(runfmt.PartPool, 0, runfmt.LedgerGoTrace)}
	}
	src := b.runtimeSource()
	pool := r.Waits[runfmt.WaitPool]
	lock := measured(runfmt.PartLock, r.MsPerRequest-pool, src)
	lock.row.Sites = sites(r)
	lock.row.Waits = map[runfmt.Wait]float64{}
	for w, ms := range r.Waits {
		if w != runfmt.WaitPool {
			lock.row.Waits[w] = ms
		}
	}
	if len(lock.row.Waits) == 0 {
		lock.row.Waits = nil
	}
	if !b.goTrace {
		return []*part{lock, notMeasured(runfmt.PartPool, "pools and semaphores are told from locks in Go traces only: in lock")}
	}
	return []*part{lock, measured(runfmt.PartPool, pool, src)}
}

func (b *builder) sleep() *part {
	r := b.kind(runfmt.TimeSleep)
	kernel := b.k != nil && b.k.SchedWhy == "" && b.in.Runtime != runfmt.RuntimeGo
	if s := b.in.SampledSleep; r != nil && b.spy && kernel && s != nil {
		return b.sampledSleep(r, *s)
	}
	if r != nil {
		p := measured(runfmt.PartSleep, r.MsPerRequest, b.runtimeSource())
		p.row.Sites = sites(r)
		return p
	}
	if b.goTrace {
		return measured(runfmt.PartSleep, 0, runfmt.LedgerGoTrace)
	}
	if b.in.Runtime == runfmt.RuntimeGo {
		return notMeasured(runfmt.PartSleep, "a Go service sleeps on the runtime's timers, not its threads: its execution trace times them ("+b.noSplit()+")")
	}
	if k := b.k; k != nil && k.SchedWhy == "" {
		p := measured(runfmt.PartSleep, b.per(k.Sleep), runfmt.LedgerKernel)
		if p.ms == 0 {
			return p
		}
		return p.note("The service's threads asleep in nanosleep or clock_nanosleep (all its threads: a background thread's sleeps count too).")
	}
	return notMeasured(runfmt.PartSleep, b.kernelWhy(whyOf(b.k, func(k *Kernel) string { return k.SchedWhy })))
}

// sampledSleep is the sleep part from the kernel's time asleep of every
// thread (nanosleep, clock_nanosleep: exact, but a background thread's
// sleeps count too) and a sampler's recording of every thread, which
// tells the share of the sleeping that was in threads serving requests.
// The sampler's own figure for the requests' sleep is a count of ticks
// of a slice of the window: the kernel's is kept, and the sampler names
// where the requests sleep.
func (b *builder) sampledSleep(r *runfmt.TimeRow, s SampledSleep) *part {
	all, src := b.per(b.k.Sleep), b.runtimeSource()
	if s.All <= 0 {
		p := measured(runfmt.PartSleep, r.MsPerRequest, src)
		p.row.Sites = sites(r)
		if all > 0.0005 {
			p.note("The kernel timed the service's threads asleep %s per request; %s saw none of its threads asleep in their code over its recording, so none of it is charged to the requests.",
				units.FormatMs(all), b.in.Time.Source)
		}
		return p
	}
	share := math.Min(s.Requests.Seconds()/s.All.Seconds(), 1)
	p := measured(runfmt.PartSleep, all*share, runfmt.LedgerKernel, src)
	p.row.Sites = sites(r)
	if share > 0.9995 {
		return p.note("The service's threads asleep in nanosleep or clock_nanosleep as the kernel timed them; %s saw no thread asleep but those serving requests.", b.in.Time.Source)
	}
	return p.note("The service's threads were asleep %s per request as the kernel timed them (nanosleep, clock_nanosleep); %s saw %s of the time its threads slept in threads serving requests, the rest in other threads.",
		units.FormatMs(all), b.in.Time.Source, pct(share))
}

func (b *builder) disk() *part {
	k := b.k
	if k == nil || k.SchedWhy != "" {
		return notMeasured(runfmt.PartDisk, b.kernelWhy(whyOf(k, func(k *Kernel) string { return k.SchedWhy })))
	}
	ms := b.per(k.Disk)
	p := measured(runfmt.PartDisk, ms, runfmt.LedgerKernel)
	if r := b.kind(runfmt.TimeSyscall); r != nil && ms > r.MsPerRequest {
		p.ms = r.MsPerRequest
		p.note("The threads' uninterruptible waits were %s per request, more than the requests' system calls (%s): the rest was other threads'.",
			units.FormatMs(ms), units.FormatMs(r.MsPerRequest))
	}
	return p
}

func (b *builder) syscall() *part {
	r := b.kind(runfmt.TimeSyscall)
	if r == nil {
		if b.goTrace {
			return measured(runfmt.PartSyscall, 0, runfmt.LedgerGoTrace)
		}
		return notMeasured(runfmt.PartSyscall, "the threads' waits in other system calls include idle ones (select, accept): only a runtime's split charges them to requests ("+b.noSplit()+")")
	}
	ms := r.MsPerRequest
	p := measured(runfmt.PartSyscall, ms, b.runtimeSource())
	p.row.Sites = sites(r)
	if k := b.k; k != nil && k.SchedWhy == "" {
		disk := math.Min(b.per(k.Disk), ms)
		p.ms = ms - disk
		if disk > 0.0005 {
			p.note("Less the %s of uninterruptible waits (disk) inside them.", units.FormatMs(disk))
		}
	}
	return p
}

func ms1(d interface{ Seconds() float64 }) float64 { return d.Seconds() * 1000 }

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
