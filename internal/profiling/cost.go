package profiling

import (
	"math"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/procfs"

	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// profilerMeter measures what the profilers perflab starts use of the CPU
// during the measured window: each recorder's CPU time (utime + stime of
// /proc/PID/stat, every thread) when the window starts and when it ends,
// or its whole use as it exits (its rusage) when it ends inside the
// window. A recorder started during the window counts all its CPU, its
// start-up included; what recorders do before the window (attaching) and
// after it (writing and converting their samples) does not count: the
// figure is the profilers' share of the CPU while the service is measured.
type profilerMeter struct {
	read       func(pid int) (float64, error)      // a process's CPU seconds so far
	readThread func(pid, tid int) (float64, error) // a thread's

	mu    sync.Mutex
	phase int // meterBefore, meterDuring, meterAfter
	recs  []*recorderCPU
}

// Phases of the window for a profilerMeter.
const (
	meterBefore = iota
	meterDuring
	meterAfter
)

// recorderCPU is one recorder process.
type recorderCPU struct {
	pid   int
	tid   int // a thread of pid's, for a profiler inside the service; 0 for pid
	tool  runfmt.Profiler
	role  runfmt.ProfilerRole
	hz    int
	base  float64 // CPU seconds when the window started (0: started in it)
	used  float64 // CPU seconds used in the window, once known
	known bool    // used is final
}

func newProfilerMeter() *profilerMeter {
	return &profilerMeter{read: service.ProcessCPUSeconds, readThread: service.ThreadCPUSeconds}
}

// started registers a recorder process once it runs; hz is its sampling
// rate (0 for an event recorder such as perf sched). Nil-safe.
func (m *profilerMeter) started(pid int, tool runfmt.Profiler, role runfmt.ProfilerRole, hz int) {
	if m == nil || pid <= 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.phase == meterAfter {
		return
	}
	m.recs = append(m.recs, &recorderCPU{pid: pid, tool: tool, role: role, hz: hz})
}

// startedThread registers thread tid of the service's process pid as a
// recorder: the thread a profiler inside the service samples from (V8's).
// Nil-safe.
func (m *profilerMeter) startedThread(pid, tid int, tool runfmt.Profiler, role runfmt.ProfilerRole, hz int) {
	if m == nil || pid <= 0 || tid <= 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.phase == meterAfter {
		return
	}
	m.recs = append(m.recs, &recorderCPU{pid: pid, tid: tid, tool: tool, role: role, hz: hz})
}

// cpu is r's CPU seconds so far: a thread's to the nanosecond where the
// kernel keeps schedstat (V8's sampling thread uses about one 10 ms clock
// tick in a window of seconds, which stat's count of ticks often misses).
func (m *profilerMeter) cpu(r *recorderCPU) (float64, error) {
	if r.tid == 0 {
		return m.read(r.pid)
	}
	if m.readThread != nil {
		if s, err := m.readThread(r.pid, r.tid); err == nil {
			return s, nil
		}
	}
	th, err := procfs.NewDefaultFS()
	if err != nil {
		return 0, err
	}
	p, err := th.Thread(r.pid, r.tid)
	if err != nil {
		return 0, err
	}
	st, err := p.Stat()
	if err != nil {
		return 0, err
	}
	return st.CPUTime(), nil
}

// exited records a recorder's whole CPU use (its rusage) as it ends.
// Nil-safe.
func (m *profilerMeter) exited(pid int, cpu time.Duration) {
	if m == nil || pid <= 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.recs {
		if r.pid != pid || r.tid != 0 || r.known {
			continue
		}
		switch m.phase {
		case meterBefore: // ended before the window: nothing in it
			r.known = true
		case meterDuring:
			r.used, r.known = max(cpu.Seconds()-r.base, 0), true
		case meterAfter: // gone when the window ended: its end is the nearest reading
			r.used, r.known = max(cpu.Seconds()-r.base, 0), true
		}
	}
}

// begin marks the window's start: the recorders running now count from
// here. Nil-safe.
func (m *profilerMeter) begin() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.recs {
		if r.known {
			continue
		}
		cpu, err := m.cpu(r)
		if err != nil {
			r.known = true // gone without a word: nothing in the window
			continue
		}
		r.base = cpu
	}
	m.phase = meterDuring
}

// end marks the window's end: the recorders still running count up to
// here. One that has exited and not yet reported is counted when it does.
// Nil-safe; only the first call counts.
func (m *profilerMeter) end() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.phase != meterDuring {
		return
	}
	for _, r := range m.recs {
		if r.known {
			continue
		}
		if cpu, err := m.cpu(r); err == nil {
			r.used, r.known = max(cpu-r.base, 0), true
		}
	}
	m.phase = meterAfter
}

// uses sums the window's profiler CPU by tool and role, and in all.
func (m *profilerMeter) uses() ([]runfmt.ProfilerUse, float64) {
	if m == nil {
		return nil, 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.phase != meterAfter {
		return nil, 0
	}
	var out []runfmt.ProfilerUse
	var total float64
	for _, r := range m.recs {
		i := slices.IndexFunc(out, func(u runfmt.ProfilerUse) bool { return u.Tool == r.tool && u.Role == r.role })
		if i < 0 {
			out = append(out, runfmt.ProfilerUse{Tool: r.tool, Role: r.role, Hz: r.hz})
			i = len(out) - 1
		}
		out[i].Processes++
		out[i].CPUSeconds += r.used
		total += r.used
	}
	for i := range out {
		out[i].CPUSeconds = math.Round(out[i].CPUSeconds*1e4) / 1e4
	}
	return out, total
}
