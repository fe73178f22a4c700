package profiling

import (
	"errors"
	"math"
	"os"
	"syscall"
	"testing"
	"time"

	"perflab/internal/runfmt"
)

// fakeCPU is the CPU seconds of recorder processes, set by the test; a
// missing pid is a process that is gone.
type fakeCPU map[int]float64

func (f fakeCPU) read(pid int) (float64, error) {
	if cpu, ok := f[pid]; ok {
		return cpu, nil
	}
	return 0, errors.New("no such process")
}

func TestProfilerMeterCountsTheWindowOnly(t *testing.T) {
	cpu := fakeCPU{}
	m := &profilerMeter{read: cpu.read}
	// Before the window: two py-spy recorders attach (0.10 s of CPU each
	// by the window's start), one ends at once, perf records.
	m.started(11, runfmt.ProfilerPySpy, runfmt.RoleCPU, 19)
	m.started(12, runfmt.ProfilerPySpy, runfmt.RoleCPU, 19)
	m.started(13, runfmt.ProfilerPySpy, runfmt.RoleCPU, 19)
	m.started(20, runfmt.ProfilerPerf, runfmt.RoleCPU, 99)
	m.exited(13, 90*time.Millisecond)
	cpu[11], cpu[12], cpu[20] = 0.10, 0.10, 0.20
	m.begin()
	// During it: 12 exits having used 0.25 s in all; the off-CPU slice
	// starts and stops (its start-up counts).
	m.exited(12, 250*time.Millisecond)
	m.started(30, runfmt.ProfilerPySpy, runfmt.RoleOffCPU, 19)
	m.exited(30, 180*time.Millisecond)
	cpu[11], cpu[20] = 0.40, 0.21
	// A recorder that exited at the end and reports after it.
	m.started(14, runfmt.ProfilerPySpy, runfmt.RoleCPU, 19)
	m.end()
	m.exited(14, 50*time.Millisecond)
	// After it: what they do counts no more; a recorder started now is not listed.
	cpu[11] = 0.90
	m.exited(11, 900*time.Millisecond)
	m.started(40, runfmt.ProfilerRbSpy, runfmt.RoleCPU, 49)

	uses, total := m.uses()
	want := map[string]runfmt.ProfilerUse{
		"py-spy/cpu":     {Tool: runfmt.ProfilerPySpy, Role: runfmt.RoleCPU, Hz: 19, Processes: 4, CPUSeconds: 0.30 + 0.15 + 0.05},
		"py-spy/off-cpu": {Tool: runfmt.ProfilerPySpy, Role: runfmt.RoleOffCPU, Hz: 19, Processes: 1, CPUSeconds: 0.18},
		"perf/cpu":       {Tool: runfmt.ProfilerPerf, Role: runfmt.RoleCPU, Hz: 99, Processes: 1, CPUSeconds: 0.01},
	}
	if len(uses) != len(want) {
		t.Fatalf("uses %+v; want %d kinds", uses, len(want))
	}
	var sum float64
	for _, u := range uses {
		w, ok := want[string(u.Tool)+"/"+string(u.Role)]
		if !ok || u.Hz != w.Hz || u.Processes != w.Processes || math.Abs(u.CPUSeconds-w.CPUSeconds) > 1e-9 {
			t.Errorf("%s/%s: %+v; want %+v", u.Tool, u.Role, u, w)
		}
		sum += w.CPUSeconds
	}
	if math.Abs(total-sum) > 1e-9 {
		t.Errorf("total %.4f s; want %.4f", total, sum)
	}
}

func TestProfilerMeterNilAndUnfinished(t *testing.T) {
	var m *profilerMeter // no profiling: nothing to say, nothing to fail
	m.started(1, runfmt.ProfilerPerf, runfmt.RoleCPU, 99)
	m.exited(1, time.Second)
	if uses, total := m.uses(); uses != nil || total != 0 {
		t.Errorf("nil meter: %+v, %g", uses, total)
	}
	m = &profilerMeter{read: fakeCPU{1: 1}.read}
	m.started(1, runfmt.ProfilerPerf, runfmt.RoleCPU, 99)
	m.begin()
	if uses, _ := m.uses(); uses != nil {
		t.Errorf("uses before the window ended: %+v; want none (not measured yet)", uses)
	}
}

// The meter reads real processes: this test's own CPU grows while it
// burns, and the meter sees it between the window's edges.
func TestProfilerMeterReadsProc(t *testing.T) {
	m := newProfilerMeter()
	m.started(os.Getpid(), runfmt.ProfilerPerf, runfmt.RoleCPU, 99)
	m.begin()
	burnCPU(50 * time.Millisecond)
	m.end()
	_, total := m.uses()
	if total < 0.02 || total > 5 {
		t.Errorf("%.3f s of CPU in a window that burned 50 ms of it; want about that (10 ms ticks)", total)
	}
}

// burnCPU spins until the process has used d more of CPU time, or ten
// times d of wall time has passed (a starved machine).
func burnCPU(d time.Duration) {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start, wall := cpu(), time.Now()
	for x := 1; ; x++ {
		if x%4096 == 0 && (cpu()-start >= d || time.Since(wall) > 10*d) {
			return
		}
	}
}
