package capture

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/files"
	"perflab/internal/runfmt"
)

// ErrNoSchedTracepoints is a kernel that does not offer the scheduler's
// sched_switch tracepoint to perf (no tracefs, or tracing not built in).
var ErrNoSchedTracepoints = errors.New("the kernel offers no sched:sched_switch tracepoint")

// tracefsDirs are where the kernel's trace events may be mounted (a
// test replaces them).
var tracefsDirs = files.TracefsDirs

// SchedAvailable tells whether perf can record context switches here.
func SchedAvailable() error {
	for _, d := range tracefsDirs {
		if _, err := os.Stat(filepath.Join(d, "events", "sched", "sched_switch")); err == nil {
			return nil
		}
	}
	return fmt.Errorf("%w (no events/sched/sched_switch under %s): no off-CPU stacks for native code", ErrNoSchedTracepoints, strings.Join(tracefsDirs, " or "))
}

// SchedConfig describes a recording of context switches.
type SchedConfig struct {
	PIDs    []int   // the processes whose threads are followed
	Seconds float64 // how long
	// Perf is the perf binary ("" finds it in PATH).
	Perf string
	// OnStart, when set, is called with perf record's process ID once it
	// runs; CPUUsed, when set, receives its CPU time (user + system).
	OnStart func(pid int)
	CPUUsed *time.Duration
	// OnAttached, when set, makes perf start with its events disabled,
	// enables them as soon as perf can take the command (perf -a first
	// reads every process's mappings: a tenth of a second of CPU), and is
	// called then: a recording started ahead of a window does its
	// start-up before it. The profile's duration then runs from there.
	OnAttached func()
	// Stop, when closed, ends the recording before Seconds: perf gets
	// SIGINT and what it recorded is read as usual.
	Stop <-chan struct{}
}

// maxSchedThreads bounds the threads followed: the tracepoint filter names
// each of them.
const maxSchedThreads = 256

// PerfSchedRecord records every time a thread of cfg.PIDs leaves a CPU and
// comes back (perf record -e sched:sched_switch, system-wide, filtered on
// the threads' ids), and returns their time off a CPU by the stack they
// left at, as a wall-time profile (runfmt's format: sample types wall,
// offcpu and one per kind, in nanoseconds, a wait label per sample): a
// thread preempted while runnable is "runnable", one in uninterruptible
// sleep (disk I/O) "syscall", a sleeping one by its kernel stack: futex
// "lock", sockets and polling "downstream", nanosleep "sleep", else
// "other". Threads started after the recording began are not followed.
func PerfSchedRecord(ctx context.Context, cfg SchedConfig) (*profile.Profile, error) {
	if err := SchedAvailable(); err != nil {
		return nil, err
	}
	tids := threadIDs(cfg.PIDs)
	if len(tids) == 0 || cfg.Seconds <= 0 {
		return nil, fmt.Errorf("perf sched record: no threads of %v to follow (did it exit?): %w", cfg.PIDs, ErrProcessGone)
	}
	if len(tids) > maxSchedThreads {
		tids = tids[:maxSchedThreads]
	}
	perf, data, err := perfData(cfg.Perf, "perf sched record", "sched")
	if err != nil {
		return nil, err
	}
	defer data.close()
	var filter []string
	for _, t := range tids {
		filter = append(filter, fmt.Sprintf("prev_pid == %d || next_pid == %d", t, t))
	}
	args := []string{"record", "-e", "sched:sched_switch", "--filter", strings.Join(filter, " || "), "-a", "-g"}
	var ctl *perfControl
	if cfg.OnAttached != nil {
		if ctl, err = newPerfControl(); err != nil {
			return nil, fmt.Errorf("perf sched record: %w", err)
		}
		defer ctl.close()
		args = append(args, "-D", "-1", "--control", "fd:3,4")
	}
	args = append(args, "-o", data.arg(len(ctl.childFiles())))
	args = append(args, "--", sleepCommand, strconv.FormatFloat(cfg.Seconds, 'f', -1, 64))
	cmd, stderr := data.command(ctx, perf, args)
	start := time.Now()
	var attachedAt atomic.Int64
	attached := func() {
		attachedAt.Store(time.Now().UnixNano())
		cfg.OnAttached()
	}
	stopped, cpu, err := perfRun{onStart: cfg.OnStart, ctl: ctl, attached: attached, stop: cfg.Stop}.run(cmd)
	end := time.Now()
	if cfg.CPUUsed != nil {
		*cfg.CPUUsed = cpu
	}
	if err != nil && stopped && ctx.Err() == nil && data.wrote() {
		err = nil // stopped early on purpose: perf wrote what it recorded
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("perf sched record: %w", ctx.Err())
		}
		if strings.Contains(stderr.String(), "sched:sched_switch") && strings.Contains(stderr.String(), "not") {
			return nil, fmt.Errorf("perf sched record: %w: %s", ErrNoSchedTracepoints, lastLines(stderr.String(), 2))
		}
		return nil, perfRecordError(cfg.PIDs, err, stderr.String())
	}
	script := exec.CommandContext(ctx, perf, "script", "-i", data.arg(0), "-F", "tid,time,event,trace,ip,sym,dso,symoff", "--ns")
	script.ExtraFiles = data.extraFiles()
	diesWithPerflab(script, syscall.SIGKILL)
	runtime.LockOSThread() // see diesWithPerflab
	defer runtime.UnlockOSThread()
	out, err := script.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("perf script: %w", err)
	}
	script.Stderr = files.NewTail(8 << 10)
	if err := script.Start(); err != nil {
		return nil, fmt.Errorf("perf script: %w", err)
	}
	p, perr := ParseSchedSwitches(out, tids)
	if perr != nil {
		_ = script.Process.Kill()
	}
	if werr := script.Wait(); perr == nil && werr != nil {
		perr = fmt.Errorf("%w: %s", werr, lastLines(script.Stderr.(*files.Tail).String(), 3))
	}
	if perr != nil {
		return nil, fmt.Errorf("perf script: %w", perr)
	}
	p.TimeNanos, p.DurationNanos = start.UnixNano(), min(int64(cfg.Seconds*1e9), end.Sub(start).Nanoseconds())
	if at := attachedAt.Load(); at > 0 {
		p.TimeNanos, p.DurationNanos = at, end.UnixNano()-at
	}
	return p, nil
}

// threadIDs lists the threads of pids (/proc/PID/task).
func threadIDs(pids []int) []int {
	var out []int
	for _, pid := range pids {
		ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil {
			continue
		}
		for _, e := range ents {
			if t, err := strconv.Atoi(e.Name()); err == nil {
				out = append(out, t)
			}
		}
	}
	return out
}

// switchOut is a thread's last departure from a CPU.
type switchOut struct {
	at    int64 // nanoseconds
	wait  runfmt.Wait
	stack []frame
}

// ParseSchedSwitches reads `perf script -F tid,time,event,trace,ip,sym,dso,symoff`
// output of sched:sched_switch events and charges each of the threads tids
// its time off a CPU (from switching out to switching back in) to the stack
// it switched out at. Events it cannot read are skipped.
func ParseSchedSwitches(r io.Reader, tids []int) (*profile.Profile, error) {
	follow := map[int64]bool{}
	for _, t := range tids {
		follow[int64(t)] = true
	}
	b := newWallBuilder()
	out := map[int64]switchOut{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxPerfLine)
	var ev *schedEvent
	flush := func() {
		if ev == nil {
			return
		}
		if follow[ev.prev] {
			out[ev.prev] = switchOut{at: ev.at, wait: schedWait(ev.state, ev.stack), stack: ev.stack}
		}
		if o, ok := out[ev.next]; ok && follow[ev.next] && ev.at > o.at {
			b.add(o.stack, o.wait, ev.at-o.at)
			delete(out, ev.next)
		}
		ev = nil
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case strings.Contains(line, "sched:sched_switch:"): // headers are indented too
			flush()
			ev = parseSchedHeader(line)
		case line[0] == ' ' || line[0] == '\t':
			if ev != nil {
				ev.stack = append(ev.stack, parsePerfFrame(line))
			}
		default:
			flush()
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading sched_switch events: %w", err)
	}
	return b.p, nil
}

// schedEvent is one sched_switch: prev leaves the CPU (in state), next
// gets it; stack is prev's (perf records the stack of the task the event
// happens in).
type schedEvent struct {
	at         int64 // nanoseconds
	prev, next int64
	state      string
	stack      []frame
}

// parseSchedHeader reads "  TID  TIME: sched:sched_switch: prev_comm=... prev_pid=N ... prev_state=S ==> next_comm=... next_pid=M ...".
func parseSchedHeader(line string) *schedEvent {
	head, trace, ok := strings.Cut(line, "sched:sched_switch:")
	if !ok {
		return nil
	}
	f := strings.Fields(head)
	if len(f) < 2 {
		return nil
	}
	at, ok := parseNanos(strings.TrimSuffix(f[len(f)-1], ":"))
	if !ok {
		return nil
	}
	ev := &schedEvent{at: at, prev: -1, next: -1}
	for _, kv := range strings.Fields(trace) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		switch k {
		case "prev_pid":
			ev.prev, _ = strconv.ParseInt(v, 10, 64)
		case "next_pid":
			ev.next, _ = strconv.ParseInt(v, 10, 64)
		case "prev_state":
			ev.state = v
		}
	}
	if ev.prev < 0 || ev.next < 0 {
		return nil
	}
	return ev
}

// parseNanos reads perf's "SECONDS.NANOSECONDS" time exactly.
func parseNanos(s string) (int64, bool) {
	sec, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || n < 0 || n > 1<<32 || len(frac) > 9 {
		return 0, false
	}
	f := int64(0)
	if frac != "" {
		v, err := strconv.ParseUint(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
		if err != nil {
			return 0, false
		}
		f = int64(v)
	}
	return n*1e9 + f, true
}

// schedWait names why a thread left the CPU from its state and its kernel
// stack (leaf first).
func schedWait(state string, stack []frame) runfmt.Wait {
	switch {
	case strings.HasPrefix(state, "R"):
		return runfmt.WaitRunnable
	case strings.HasPrefix(state, "D"):
		return runfmt.WaitSyscall
	}
	for _, f := range stack {
		n := f.name
		switch {
		case strings.Contains(n, "futex"):
			return runfmt.WaitLock
		case strings.Contains(n, "nanosleep") || strings.HasPrefix(n, "do_sleep"):
			return runfmt.WaitSleep
		case strings.Contains(n, "epoll") || strings.Contains(n, "poll_schedule") || strings.Contains(n, "do_select") ||
			strings.Contains(n, "sk_wait") || strings.Contains(n, "tcp_") || strings.Contains(n, "inet_csk_accept") ||
			strings.Contains(n, "unix_stream") || strings.Contains(n, "sock_"):
			return runfmt.WaitDownstream
		case strings.Contains(n, "pipe_") || strings.Contains(n, "wait_woken"):
			return runfmt.WaitOther
		}
	}
	return runfmt.WaitOther
}

// wallBuilder builds a wall-time profile (runfmt's format) from stacks.
type wallBuilder struct {
	*builder
	kind map[runfmt.TimeKind]int
}

func newWallBuilder() *wallBuilder {
	b := &wallBuilder{builder: newBuilder(1), kind: map[runfmt.TimeKind]int{}}
	b.p.SampleType = []*profile.ValueType{{Type: runfmt.WallSample, Unit: "nanoseconds"}, {Type: runfmt.OffCPUSample, Unit: "nanoseconds"}}
	for _, k := range runfmt.TimeKinds.List() {
		b.kind[k] = len(b.p.SampleType)
		b.p.SampleType = append(b.p.SampleType, &profile.ValueType{Type: string(k), Unit: "nanoseconds"})
	}
	b.p.DefaultSampleType, b.p.PeriodType, b.p.Period = runfmt.OffCPUSample, nil, 0
	return b
}

// add charges ns of wait to stack.
func (b *wallBuilder) add(stack []frame, wait runfmt.Wait, ns int64) {
	if ns <= 0 || len(stack) == 0 {
		return
	}
	key := string(wait)
	for _, f := range stack {
		key += ";" + f.name + "@" + f.dso
	}
	s := b.samples[key]
	if s == nil {
		s = &profile.Sample{Value: make([]int64, len(b.p.SampleType)), Label: map[string][]string{runfmt.WaitLabel: {string(wait)}}}
		for _, f := range stack {
			s.Location = append(s.Location, b.location(f))
		}
		b.samples[key] = s
		b.p.Sample = append(b.p.Sample, s)
	}
	s.Value[0] += ns
	s.Value[1] += ns
	s.Value[b.kind[wait.Kind()]] += ns
}
