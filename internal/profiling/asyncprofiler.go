package profiling

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"
	"github.com/prometheus/procfs"

	"perflab/internal/capture"
	"perflab/internal/files"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// asyncProfiler is async-profiler, for JVMs: its agent library is
// loaded into the running JVM through the JVM's attach socket (what the
// JDK's jcmd JVMTI.agent_load does; jcmd itself when the socket cannot be
// reached), samples the CPU there with perf_events (or a timer) and walks
// the JVM's own stacks, so interpreted, compiled and inlined Java methods
// are all named with their callers, without frame pointers or a perf map,
// beside the JVM's C++ frames; stopped, it has written a JFR recording of
// the samples with each thread's name and each Java frame's line. One
// recorder per JVM; jcmd returns once the agent has started. It is no
// binary on PATH: its library is looked for (asyncLib). A stuck JVM's
// stacks are its own thread dump, jcmd Thread.print, which needs the
// JDK's jcmd and not the agent.
//
// Its rate is capture.DefaultAsyncProfilerHz: the agent samples CPU time
// as perf's cpu-clock does, so its cost follows the service's CPU; twice
// perf's rate doubles the samples a ranking rests on for about 1% more of
// the service's CPU.
var asyncProfiler = Profiler{
	Name:     runfmt.ProfilerAsyncProfiler,
	Install:  "put linux-x64/libasyncProfiler.so of Maven Central's tools.profiler:async-profiler jar in " + asyncLibDirs[0] + " (or set " + asyncLibEnv + " to its path)",
	Runtimes: []runfmt.Runtime{runfmt.RuntimeJVM},
	Gives:    Gives{Snapshot: true, Lines: true},
	Sampling: Sampling{SignalsReady: true},
	Hz:       capture.DefaultAsyncProfilerHz,
	Locate: func() error {
		_, err := asyncLib()
		return err
	},
	Lost:     `interpreted Java methods show as "Interpreter" and compiled ones reach their callers only with ` + jvmFramePointerFlag,
	Recorder: asyncProfilerRecorder{},
}

// asyncProfilerRecorder is what async-profiler does.
type asyncProfilerRecorder struct{}

var (
	_ Recorder     = asyncProfilerRecorder{}
	_ Snapshotter  = asyncProfilerRecorder{}
	_ processNoter = asyncProfilerRecorder{}
)

// asyncLibEnv names the agent library's path when it is not in
// asyncLibDirs.
const asyncLibEnv = "PERFLAB_ASYNC_PROFILER"

// asyncLibDirs are where the agent library is looked for.
var asyncLibDirs = []string{"/usr/local/lib/async-profiler", "/opt/async-profiler/lib"}

// asyncLib is the agent library's path.
func asyncLib() (string, error) {
	if p := os.Getenv(asyncLibEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", asyncLibEnv, p, err)
		}
		return p, nil
	}
	for _, d := range asyncLibDirs {
		p := filepath.Join(d, "libasyncProfiler.so")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no libasyncProfiler.so in " + strings.Join(asyncLibDirs, " or "))
}

// jcmdTimeout bounds each jcmd (a JVM of its own: a second or so).
const jcmdTimeout = 30 * time.Second

// Record loads the agent into the job's JVM and starts it recording to a
// JFR file (the output that keeps each Java frame's line), waits for the
// window's end, then stops it and reads the recording. The CPU it
// returns is jcmd's, when jcmd was needed; the agent's own sampling runs
// inside the JVM.
func (asyncProfilerRecorder) Record(ctx context.Context, job Job) (*profile.Profile, time.Duration, error) {
	lib, err := asyncLib()
	if err != nil {
		return nil, 0, fmt.Errorf("async-profiler: %v; %s: %w", err, asyncProfiler.Install, capture.ErrToolMissing)
	}
	dir, err := os.MkdirTemp("", "perflab-async-")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(dir)
	// The JVM writes the stacks, as its own user.
	if err := os.Chmod(dir, 0o733); err != nil {
		return nil, 0, err
	}
	pid := job.Processes[0].PID
	interval := time.Second.Nanoseconds() / int64(max(job.Hz, 1))
	a := &agent{pid: pid, lib: lib}
	out := filepath.Join(dir, "cpu.jfr")
	if err := a.command(ctx, fmt.Sprintf("start,event=cpu,interval=%dns,jfr,file=%s", interval, out), job.Started); err != nil {
		return nil, a.used, err
	}
	job.WaitWindow(ctx)
	// The agent is stopped whatever ctx says: left running, it would
	// sample the JVM until it exits.
	if err := a.command(context.WithoutCancel(ctx), "stop", nil); err != nil {
		return nil, a.used, err
	}
	data, err := files.ReadFile(out, maxStacksBytes)
	if err != nil {
		return nil, a.used, fmt.Errorf("async-profiler of pid %d: %w", pid, err)
	}
	p, err := capture.ParseAsyncJFR(data, interval, int64(pid))
	if err == nil {
		libraryPaths(p, pid)
	}
	return p, a.used, err
}

// libraryPaths names the libraries of p (async-profiler's lib option
// gives a library's file name alone, "libjvm.so") with their paths in
// the process pid, as perf names them, so that their frames are told
// apart as perf's are: libjvm's compilers and collectors, the C library,
// the JDK's other libraries. A library pid no longer maps keeps its name.
func libraryPaths(p *profile.Profile, pid int) {
	proc, err := procfs.NewProc(pid)
	if err != nil {
		return
	}
	maps, err := proc.ProcMaps()
	if err != nil {
		return
	}
	byName := map[string]string{}
	for _, m := range maps {
		if strings.HasPrefix(m.Pathname, "/") {
			byName[filepath.Base(m.Pathname)] = m.Pathname
		}
	}
	for _, m := range p.Mapping {
		if full, ok := byName[m.File]; ok {
			m.File = full
		}
	}
	for _, fn := range p.Function {
		if full, ok := byName[fn.Filename]; ok {
			fn.Filename = full
		}
	}
}

// maxStacksBytes bounds the read of the agent's recording.
const maxStacksBytes = 256 << 20

// agent is async-profiler's library loaded into the JVM of pid, and the
// CPU its jcmd commands used.
type agent struct {
	pid  int
	lib  string
	used time.Duration
}

// command gives the agent args: through the JVM's attach socket
// (capture.JVMLoadAgent, a few milliseconds), or, when the JVM cannot be
// attached to that way (a socket perflab may not reach), with jcmd.
func (a *agent) command(ctx context.Context, args string, started func(int)) error {
	ctx, cancel := context.WithTimeout(ctx, jcmdTimeout)
	defer cancel()
	_, err := capture.JVMLoadAgent(ctx, a.pid, a.lib, args)
	if err == nil || errors.Is(err, capture.ErrAttachRefused) {
		if err != nil {
			action, _, _ := strings.Cut(args, ",")
			return fmt.Errorf("async-profiler %s in JVM %d: %w", action, a.pid, err)
		}
		return nil
	}
	return a.jcmd(ctx, args, started)
}

// jcmd runs `jcmd PID JVMTI.agent_load LIB "ARGS"` (quoted: jcmd would
// read ARGS's "=" as its own key=value), adding its CPU to a.used;
// started, if not nil, is told jcmd's pid.
func (a *agent) jcmd(ctx context.Context, args string, started func(int)) error {
	pid, lib := a.pid, a.lib
	if _, err := exec.LookPath(jcmdCommand); err != nil {
		return fmt.Errorf("async-profiler: JVM %d could not be attached to through its socket, and %v: %w", pid, err, capture.ErrToolMissing)
	}
	cmd := exec.CommandContext(ctx, jcmdCommand, strconv.Itoa(pid), "JVMTI.agent_load", lib, `"`+args+`"`)
	tail := files.NewTail(4 << 10)
	cmd.Stdout, cmd.Stderr = tail, tail
	if err := cmd.Start(); err != nil {
		return err
	}
	if started != nil {
		started(cmd.Process.Pid)
	}
	err := cmd.Wait()
	if cmd.ProcessState != nil {
		a.used += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	action, _, _ := strings.Cut(args, ",")
	switch {
	case err != nil:
		return fmt.Errorf("jcmd %d JVMTI.agent_load (async-profiler %s): %v: %s", pid, action, err, lastLine(tail.String()))
	case !strings.Contains(tail.String(), "return code: 0"):
		return fmt.Errorf("jcmd %d JVMTI.agent_load (async-profiler %s) failed: %s (the JVM's own output says why)", pid, action, lastLine(tail.String()))
	}
	return nil
}

// Snapshot is the JVM's thread dump (jcmd Thread.print).
func (asyncProfilerRecorder) Snapshot(ctx context.Context, job SnapshotJob) (*capture.Snapshot, error) {
	return capture.JcmdThreads(ctx, job.PID)
}

// noteProcess says what perflab added to a JVM's launch, if it did: the
// agent needs no frame pointers, but the JVM keeps the flag.
func (asyncProfilerRecorder) noteProcess(info service.ProcessInfo) (key, msg string) {
	if info.Runtime != runfmt.RuntimeJVM || !jvmKeepsFramePointers(info.PID) {
		return "", ""
	}
	return noteJVM(info)
}
