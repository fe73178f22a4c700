package service

import (
	"context"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// MachineSample is the host and perflab itself at one instant; counters are
// cumulative.
type MachineSample struct {
	T time.Time
	// host is /proc/stat's CPU total.
	host hostCPU
	// SelfCPUSeconds is perflab's own CPU (every thread, getrusage).
	SelfCPUSeconds float64
	// SelfRunqueueWaitSeconds is how long perflab's threads (the load
	// generator among them) were runnable but waited for a CPU.
	SelfRunqueueWaitSeconds float64
}

// Scan pacing: a pass over every process runs at most once a second, and
// less often when it is costly, so it stays under scanBudget of one core.
const (
	minScanEvery = time.Second
	maxScanEvery = 10 * time.Second
	scanBudget   = 0.002
	// maxScans bounds what a long session keeps (an hour at one a second);
	// when full, the older half is dropped.
	maxScans = 3600
	// maxMachineSamples bounds the host samples the same way.
	maxMachineSamples = 1 << 16
)

// MachineSampler watches the machine beside the service: the host's CPU
// time (/proc/stat: user, system, interrupts, iowait, steal), perflab's own
// CPU and run-queue wait, and, in a slower pass over every process, which
// other processes used the CPUs. It answers "was this measurement alone on
// the machine?" for any window with Window.
type MachineSampler struct {
	interval time.Duration
	self     int
	service  atomic.Int64

	mu      sync.Mutex
	samples []MachineSample
	scans   []procScan

	// scanNow asks Run's goroutine for a scan at once (see ScanNow).
	scanNow chan chan struct{}

	// Owned by the goroutine running Run.
	r         fileReader
	wait      runqueueWait
	scanner   procScanner
	nextScan  time.Time
	scanEvery time.Duration
}

// NewMachineSampler samples every interval (DefaultInterval when 0).
func NewMachineSampler(interval time.Duration) *MachineSampler {
	if interval <= 0 {
		interval = DefaultInterval
	}
	return &MachineSampler{interval: interval, self: os.Getpid(), scanEvery: minScanEvery, scanNow: make(chan chan struct{})}
}

// ScanNow has the running sampler scan every process at once, so a window
// that starts or ends now has a scan at its edge rather than up to a scan
// interval away. It waits at most a second, and not at all when Run is
// not running.
func (m *MachineSampler) ScanNow() {
	done := make(chan struct{})
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case m.scanNow <- done:
	case <-t.C:
		return
	}
	select {
	case <-done:
	case <-t.C:
	}
}

// SetService names the service's main process: its process tree is the
// service's, not another process's. 0 means none.
func (m *MachineSampler) SetService(pid int) { m.service.Store(int64(pid)) }

// Run samples at once, then every interval until ctx is done. Call it once.
func (m *MachineSampler) Run(ctx context.Context) {
	t := time.NewTicker(m.interval)
	defer t.Stop()
	m.take(time.Now())
	for {
		select {
		case <-ctx.Done():
			m.take(time.Now())
			return
		case done := <-m.scanNow:
			m.nextScan = time.Time{}
			m.take(time.Now())
			close(done)
		case <-t.C:
			m.take(time.Now())
		}
	}
}

func (m *MachineSampler) take(now time.Time) {
	smp, ok := m.sample()
	var scan procScan
	scanned := !now.Before(m.nextScan)
	if scanned {
		scan = m.scan(now)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if ok {
		if len(m.samples) >= maxMachineSamples {
			m.samples = append(m.samples[:0], m.samples[len(m.samples)/2:]...)
		}
		m.samples = append(m.samples, smp)
	}
	if scanned {
		if len(m.scans) >= maxScans {
			m.scans = append(m.scans[:0], m.scans[len(m.scans)/2:]...)
		}
		m.scans = append(m.scans, scan)
	}
}

// sample reads the host's CPU and perflab's own.
func (m *MachineSampler) sample() (MachineSample, bool) {
	b, err := m.r.read("/proc/stat")
	if err != nil {
		return MachineSample{}, false
	}
	h, err := parseHostStat(b)
	if err != nil {
		return MachineSample{}, false
	}
	smp := MachineSample{T: time.Now(), host: h} // when /proc/stat was read
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) == nil {
		smp.SelfCPUSeconds = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	}
	m.wait.begin()
	m.wait.add(&m.r, m.self)
	smp.SelfRunqueueWaitSeconds = m.wait.end()
	return smp, true
}

// scan passes over every process and schedules the next pass so that
// scanning costs at most scanBudget of a core. The cost is the pass's CPU
// time on its thread: its wall time on a busy machine would mostly be time
// spent waiting for a CPU, and would space the scans out for nothing.
func (m *MachineSampler) scan(now time.Time) procScan {
	runtime.LockOSThread()
	start := threadCPU()
	s := m.scanner.scan(now, m.self, int(m.service.Load()))
	cost := threadCPU() - start
	runtime.UnlockOSThread()
	m.scanEvery = min(max(minScanEvery, time.Duration(float64(cost)/scanBudget)), maxScanEvery)
	m.nextScan = now.Add(m.scanEvery)
	return s
}

// threadCPU is the calling thread's CPU time.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// Samples returns a copy of the host samples so far.
func (m *MachineSampler) Samples() []MachineSample {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]MachineSample(nil), m.samples...)
}

func (m *MachineSampler) scansCopy() []procScan {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]procScan(nil), m.scans...)
}
