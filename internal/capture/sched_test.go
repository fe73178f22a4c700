package capture

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

const schedScript = `   4242 100.000000000: sched:sched_switch: prev_comm=svc prev_pid=4242 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
	ffffffff821f8298 __schedule+0x618 ([kernel.kallsyms])
	ffffffff821f8c03 schedule+0x23 ([kernel.kallsyms])
	ffffffff8143f236 futex_do_wait+0x46 ([kernel.kallsyms])
	          85f16 __futex_abstimed_wait_common+0xc6 (/usr/lib/x86_64-linux-gnu/libc.so.6)
	          11a2b lock_table+0x1b (/srv/svc)
	          11c00 handle_request+0x40 (/srv/svc)

      0 100.002000000: sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=svc next_pid=4242 next_prio=120
	ffffffff821f8298 __schedule+0x618 ([kernel.kallsyms])

   4242 100.003000000: sched:sched_switch: prev_comm=svc prev_pid=4242 prev_prio=120 prev_state=R ==> next_comm=other next_pid=77 next_prio=120
	ffffffff821f8298 __schedule+0x618 ([kernel.kallsyms])
	          11c10 handle_request+0x50 (/srv/svc)

     77 100.003500000: sched:sched_switch: prev_comm=other prev_pid=77 prev_prio=120 prev_state=S ==> next_comm=svc next_pid=4242 next_prio=120
	ffffffff821f8298 __schedule+0x618 ([kernel.kallsyms])
garbage line
`

func TestParseSchedSwitches(t *testing.T) {
	p, err := ParseSchedSwitches(strings.NewReader(schedScript), []int{4242})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, s := range p.Sample {
		got[s.Label[runfmt.WaitLabel][0]] += s.Value[0]
	}
	// 2 ms blocked in a futex under lock_table, 0.5 ms preempted.
	if got["lock"] != 2e6 || got["runnable"] != 5e5 || len(got) != 2 {
		t.Errorf("off-CPU time by wait = %v; want lock 2ms, runnable 0.5ms", got)
	}
	if err := p.CheckValid(); err != nil {
		t.Error(err)
	}
}

// TestPerfSchedRecord follows a process that sleeps in a loop.
func TestPerfSchedRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("records the scheduler for a second")
	}
	labtest.RequireRoot(t, "perf record -a of a tracepoint")
	if err := SchedAvailable(); err != nil {
		t.Skip(labtest.SkipMessage(labtest.SkipHost, "sched-tracepoints", err.Error()))
	}
	labtest.NeedTool(t, "perf", "")
	cmd := exec.Command("sh", "-c", "while :; do sleep 0.01; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p, err := PerfSchedRecord(ctx, SchedConfig{PIDs: []int{cmd.Process.Pid}, Seconds: 1})
	if err != nil {
		t.Fatal(err)
	}
	var off int64
	for _, s := range p.Sample {
		off += s.Value[1]
	}
	t.Logf("%d stacks, %.3f s off a CPU", len(p.Sample), float64(off)/1e9)
	if off < 5e8 {
		t.Errorf("the shell waiting for sleep was off a CPU %.3f s of 1 s; want most of it", float64(off)/1e9)
	}

	// Started ahead of a window: perf says when its events are on, and
	// stopping it a second later keeps that second (of a 30 s recording),
	// its duration counted from then.
	attached, stop := make(chan struct{}), make(chan struct{})
	var recorder int
	var used time.Duration
	go func() {
		select {
		case <-attached:
			time.Sleep(time.Second) // the measurement window
		case <-ctx.Done():
		}
		close(stop)
	}()
	begin := time.Now()
	p, err = PerfSchedRecord(ctx, SchedConfig{PIDs: []int{cmd.Process.Pid}, Seconds: 30, CPUUsed: &used,
		OnStart: func(pid int) { recorder = pid }, OnAttached: func() { close(attached) }, Stop: stop})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(begin); took > 15*time.Second || recorder <= 0 || used <= 0 {
		t.Errorf("stopped recording took %s, recorder pid %d, %s of CPU; want it stopped early, both known", took, recorder, used)
	}
	off = 0
	for _, s := range p.Sample {
		off += s.Value[1]
	}
	if d := time.Duration(p.DurationNanos); d < time.Second || d > 10*time.Second || off < 5e8 || off > int64(d) {
		t.Errorf("recorded %s, %.3f s off a CPU; want about the second after perf attached, most of it off a CPU", d, float64(off)/1e9)
	}
}

func FuzzParseSchedSwitches(f *testing.F) {
	f.Add([]byte(schedScript))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParseSchedSwitches(strings.NewReader(string(b)), []int{4242, 77})
		if err != nil {
			return
		}
		for _, s := range p.Sample {
			if s.Value[0] <= 0 {
				t.Errorf("non-positive off-CPU time %v", s.Value)
			}
		}
	})
}

// TestSchedUnavailable: a kernel without the tracepoint gives one clear
// error, before perf runs.
func TestSchedUnavailable(t *testing.T) {
	saved := tracefsDirs
	defer func() { tracefsDirs = saved }()
	tracefsDirs = []string{t.TempDir()}
	err := SchedAvailable()
	if !errors.Is(err, ErrNoSchedTracepoints) || !strings.Contains(err.Error(), "no off-CPU stacks for native code") {
		t.Errorf("SchedAvailable() = %v; want ErrNoSchedTracepoints saying what is lost", err)
	}
	if _, err := PerfSchedRecord(context.Background(), SchedConfig{PIDs: []int{os.Getpid()}, Seconds: 1}); !errors.Is(err, ErrNoSchedTracepoints) {
		t.Errorf("PerfSchedRecord = %v; want ErrNoSchedTracepoints", err)
	}
}
