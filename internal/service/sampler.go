package service

import (
	"context"
	"os"
	"sync"
	"time"
)

// DefaultInterval is the sampling interval when NewSampler is given 0.
const DefaultInterval = 250 * time.Millisecond

// Sample is what the service had consumed at one instant. Counters are
// cumulative since the service (or its cgroup) started; gauges are
// instantaneous.
type Sample struct {
	T time.Time
	// CPUSeconds is the cumulative user+system CPU of the whole service.
	CPUSeconds float64
	// RSSBytes sums the resident set of the service's processes.
	RSSBytes int64
	// MemoryBytes is the cgroup's memory usage (page cache included); 0
	// without a cgroup.
	MemoryBytes int64
	// Periods, ThrottledPeriods and ThrottledSeconds are the CFS counters
	// of cpu.stat (0 without a cgroup cpu controller).
	Periods, ThrottledPeriods int64
	ThrottledSeconds          float64
	// Threads sums the threads of the service's processes.
	Threads int64
	// RunqueueWaitSeconds is the cumulative time the service's threads were
	// runnable but waited for a CPU (see runqueueWait).
	RunqueueWaitSeconds float64
	// Processes is how many processes the service had.
	Processes int
	// Source is where CPU was read: "cgroup-v1", "cgroup-v2" or "proc".
	Source string
}

// Sampler samples a process periodically.
type Sampler struct {
	p        *Process
	interval time.Duration

	mu      sync.Mutex
	samples []Sample

	// The rest belongs to the goroutine running Run; it is reused between
	// samples so a pass allocates little.
	r    fileReader
	walk procWalker
	pids []int
	path []byte
	acct cpuAccount
	wait runqueueWait
}

// pageSize converts /proc's rss pages to bytes.
var pageSize = int64(os.Getpagesize())

// NewSampler makes a sampler for p; interval 0 means DefaultInterval.
func NewSampler(p *Process, interval time.Duration) *Sampler {
	if interval <= 0 {
		interval = DefaultInterval
	}
	return &Sampler{p: p, interval: interval}
}

// Run samples at once, then every interval, until ctx is done or the main
// process exits; either way a last sample is taken then, so a window that
// ended just before has a sample past its end (without it the CPU of up to
// one interval is missing from the window while its requests are counted).
// Call it once, usually in its own goroutine.
func (s *Sampler) Run(ctx context.Context) {
	t := time.NewTicker(s.interval)
	defer t.Stop()
	s.take()
	for {
		select {
		case <-ctx.Done():
			s.take()
			return
		case <-s.p.Exited():
			s.take()
			return
		case <-t.C:
			s.take()
		}
	}
}

// Samples returns a copy of the samples so far.
func (s *Sampler) Samples() []Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sample(nil), s.samples...)
}

func (s *Sampler) take() {
	smp, ok := s.sample(time.Now())
	if !ok {
		return
	}
	s.mu.Lock()
	s.samples = append(s.samples, smp)
	s.mu.Unlock()
}

// sample reads the service once: the cgroup's counters when it has one,
// and /proc/PID/stat of each of its processes for RSS and threads (and CPU
// without a cgroup).
func (s *Sampler) sample(now time.Time) (Sample, bool) {
	smp := Sample{T: now, Source: s.p.Source()}
	g := s.p.grp
	var err error
	if g != nil {
		if err := g.read(&s.r, &smp); err != nil && g.hasCPU() {
			return smp, false
		}
		// The time the CPU counter was read, not when the pass began: a
		// sampler delayed on a busy machine would otherwise put CPU used
		// after now at now, and an interval could exceed the quota.
		smp.T = time.Now()
		s.pids, err = g.pids(&s.r, s.pids[:0])
		if err != nil {
			return smp, false
		}
	} else {
		s.pids = s.walk.tree(s.p.pid, s.pids[:0])
	}
	useProcCPU := g == nil || !g.hasCPU()
	if useProcCPU {
		s.acct.begin()
	}
	s.wait.begin()
	for _, pid := range s.pids {
		s.wait.add(&s.r, pid)
		s.path = statPath(s.path, pid)
		b, err := s.r.read(string(s.path))
		if err != nil {
			continue
		}
		st, err := parseProcStat(b)
		if err != nil {
			continue
		}
		smp.Processes++
		smp.RSSBytes += st.RSSPages * pageSize
		smp.Threads += st.Threads
		if useProcCPU {
			s.acct.add(pid, st)
		}
	}
	if useProcCPU {
		smp.CPUSeconds = float64(s.acct.end()) / userHZ
		smp.T = time.Now()
	}
	smp.RunqueueWaitSeconds = s.wait.end()
	return smp, true
}
