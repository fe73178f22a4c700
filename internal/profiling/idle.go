package profiling

import (
	"context"
	"time"

	"perflab/internal/service"
)

// A process that works little costs a profiler that reads its stacks at
// every tick (py-spy: Sampling.EveryTick) as much to sample as one that
// works hard: it reads a process's stacks at every tick, whatever the
// process does. A pre-fork server's master (gunicorn's arbiter, uvicorn's
// supervisor) and helpers such as multiprocessing's resource tracker only
// wait, so sampling them doubles what profiling a server costs with two
// workers. A process that stayed idle through the warm-up while the
// others worked is not sampled from the start: it is watched, and sampled
// from when it uses CPU. Without a warm-up (or one that used too little
// CPU to tell) every process is sampled.
const (
	// A process is idle under load when it used less than idleShare of
	// the service's CPU during the warm-up and less than idleCPU seconds.
	idleShare = 0.01
	idleCPU   = 0.02
	// minWarmCPU is the least CPU a warm-up must use to tell idle
	// processes from busy ones.
	minWarmCPU = 0.1
	// wakeCPU is the CPU a watched process must use to be sampled.
	wakeCPU = 0.02
)

// ProcessCPU reads the CPU seconds each of pids has used so far; processes
// that are gone are left out.
func ProcessCPU(pids []int) map[int]float64 {
	out := make(map[int]float64, len(pids))
	for _, pid := range pids {
		if cpu, err := service.ProcessCPUSeconds(pid); err == nil {
			out[pid] = cpu
		}
	}
	return out
}

// NoteWarmup says what the service's processes had used of the CPU before
// the warm-up and after it: those that stayed idle while the others worked
// are watched rather than sampled from the window's start.
func (p *Set) NoteWarmup(before, after map[int]float64) {
	p.warmIdle = idleUnderLoad(before, after)
}

// idleUnderLoad returns the processes of after that used (almost) no CPU
// since before, while the others used at least minWarmCPU; nil when the
// service used too little to tell. A process that appeared in between
// counts all its CPU.
func idleUnderLoad(before, after map[int]float64) map[int]bool {
	used := map[int]float64{}
	var total float64
	for pid, cpu := range after {
		used[pid] = max(cpu-before[pid], 0)
		total += used[pid]
	}
	if total < minWarmCPU {
		return nil
	}
	idle := map[int]bool{}
	for pid, u := range used {
		if u < idleCPU && u < idleShare*total {
			idle[pid] = true
		}
	}
	return idle
}

// watchEntry is a process idle through the warm-up, watched: its CPU
// when first seen, and the profiler to sample it with once it works.
type watchEntry struct {
	info service.ProcessInfo
	tool *Profiler
	cpu  float64
}

// watchIdle starts recorders for the watched processes that now use CPU,
// and forgets those that are gone. Called by refresh.
func (t *treeSampler) watchIdle(ctx context.Context, left time.Duration) {
	for pid, w := range t.watch {
		cpu, err := service.ProcessCPUSeconds(pid)
		switch {
		case err != nil:
			delete(t.watch, pid)
		case cpu-w.cpu >= wakeCPU:
			delete(t.watch, pid)
			t.setProfiler(pid, w.tool.Name)
			t.start(ctx, w.tool, []service.ProcessInfo{w.info}, left)
		}
	}
}

// watched says whether a process, to be sampled with tool, is idle under
// load and so watched instead: tool reads its stacks at every tick (its
// cost does not follow the process's CPU) and records it alone (a
// profiler that Follows records its root's children from the start).
func (t *treeSampler) watched(info service.ProcessInfo, tool *Profiler) bool {
	if !tool.Sampling.EveryTick || tool.Sampling.Follows || !t.idle[info.PID] {
		return false
	}
	cpu, err := service.ProcessCPUSeconds(info.PID)
	if err != nil {
		return false
	}
	t.watch[info.PID] = watchEntry{info: info, tool: tool, cpu: cpu}
	return true
}
