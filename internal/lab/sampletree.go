package lab

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/capture"
	"perflab/internal/runfmt"
	"perflab/internal/target"
)

// samplerLead is how long before the measured window the samplers start,
// at most: the window starts as soon as every recorder has attached.
const samplerLead = 2 * time.Second

// treeRefresh is how often the sampler looks for processes the service
// forked (pre-fork workers, replaced workers) during the window: as often
// as py-spy --subprocesses looks for children, but in the service's
// cgroup (or its process tree), not in every process of the host.
const treeRefresh = 100 * time.Millisecond

// treeSampler profiles every process of the service over the window, each
// with the best profiler for its runtime: py-spy for each Python process,
// rbspy --subprocesses for a Ruby process tree, perf -p for the rest.
// Processes that appear during the window are picked up within
// treeRefresh (rbspy follows its root's children itself; a new process
// outside a sampled tree gets its own recorder). The
// recordings are merged into one profile whose samples keep pid and comm
// labels.
type treeSampler struct {
	forced runfmt.Profiler // --profiler perf, py-spy or rbspy; "" decides per process
	// stopAt ends at the window's end (or with the run): py-spy and rbspy
	// stop then; perf records exactly what is left of the window.
	stopAt context.Context
	// onStart, if set, is called once the first recorders are started;
	// atEnd, if set, when the window ends, before they are stopped.
	onStart, atEnd func()
	// end is when the window ends (set by begin when the samplers start
	// ahead of it).
	end time.Time
	// recorders are the process IDs of the py-spy and rbspy processes
	// started; spies and perfs count those launched, perfAttached the perf
	// recorders whose events are enabled.
	recorders             []int
	pySpies               map[int]int  // py-spy recorders: the process each samples
	sampling              map[int]bool // the processes whose py-spy said it samples
	spies, perfs, perfsOn int
	hz                    func(tool runfmt.Profiler) int // the rate of each profiler
	meter                 *profilerMeter
	list                  func() []int
	warn                  func(string)
	lookTool              func(string) error

	// idle are the processes idle through the warm-up (see idleUnderLoad);
	// watch those of them not sampled yet, with their CPU when first seen.
	idle  map[int]bool
	watch map[int]float64

	mu       sync.Mutex
	procs    map[int]*runfmt.ProcessProfile
	roots    map[int]runfmt.Profiler // spy roots sampled with --subprocesses: pid -> tool
	done     map[int]bool            // roots whose recorder has ended
	profiles []*profile.Profile
	// idleProf is the first recording that worked and has no sample (the
	// process was idle); toolErr the first recorder that could not start
	// because its profiler is not installed.
	idleProf *profile.Profile
	toolErr  error
	tools    runfmt.ProfilerSet
	notes    []string
	missing  map[string]bool
	// refreshes counts the looks at the process list; started are the
	// processes first seen after the first, exited those seen gone.
	refreshes int
	started   []int
	exited    map[int]bool
	exitOrder []int
	wg        sync.WaitGroup
}

func newTreeSampler(s *session) *treeSampler {
	t := &treeSampler{
		list: s.proc.PIDs, warn: s.warn, idle: s.prof.warmIdle, watch: map[int]float64{},
		lookTool: func(name string) error { _, err := exec.LookPath(name); return err },
		procs:    map[int]*runfmt.ProcessProfile{}, roots: map[int]runfmt.Profiler{}, done: map[int]bool{},
		missing: map[string]bool{}, exited: map[int]bool{},
		pySpies: map[int]int{}, sampling: map[int]bool{},
	}
	if p, ok := s.cfg.Profiler.Profiler(); ok && p != runfmt.ProfilerPprof {
		t.forced = p
	}
	return t
}

// run samples until the window ends (or ctx is cancelled, keeping what was
// recorded) and returns the merged profile, nil when nothing was recorded.
func (t *treeSampler) run(ctx context.Context, window time.Duration) (*profile.Profile, error) {
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	t.stopAt = rctx
	t.mu.Lock()
	if t.end.IsZero() { // no lead: the window starts now
		t.end = time.Now().Add(window)
	}
	t.mu.Unlock()
	for first := true; ; first = false {
		t.refresh(ctx, time.Until(t.windowEnd()))
		if first && t.onStart != nil {
			t.onStart()
		}
		left := time.Until(t.windowEnd())
		if left <= 0 {
			if t.atEnd != nil {
				t.atEnd()
			}
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(min(treeRefresh, left)):
			continue
		}
		break
	}
	stop() // py-spy, rbspy and perf stop and keep what they sampled
	t.wg.Wait()
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.profiles) == 0 {
		switch {
		case t.toolErr != nil:
			return nil, t.toolErr // names the profiler and how to install it
		case t.idleProf != nil:
			// An idle process's profile is empty, not missing.
			t.idleProf.DurationNanos = window.Nanoseconds()
			return t.idleProf, nil
		}
		return nil, errors.New("no process could be sampled")
	}
	merged, err := profile.Merge(t.profiles)
	if err != nil {
		return nil, fmt.Errorf("merging the processes' profiles: %w", err)
	}
	merged.DurationNanos = window.Nanoseconds()
	t.account(merged)
	return merged, nil
}

// refresh starts recorders for the service's processes not sampled yet.
func (t *treeSampler) refresh(ctx context.Context, left time.Duration) {
	if left < 100*time.Millisecond {
		return
	}
	var perfPIDs []int
	now := t.list()
	t.noteExits(now)
	for _, pid := range now {
		t.mu.Lock()
		_, seen := t.procs[pid]
		t.mu.Unlock()
		if seen {
			continue
		}
		info, err := target.DetectRuntime(pid)
		var tool runfmt.Profiler
		if err == nil {
			t.noteRuntime(info)
			tool = t.toolFor(info.Runtime)
		}
		t.mu.Lock()
		t.procs[pid] = &runfmt.ProcessProfile{PID: pid, PPID: info.PPID, Runtime: info.Runtime, Exe: info.Exe, Cmdline: info.Cmdline, Profiler: tool}
		if t.refreshes > 0 {
			t.started = append(t.started, pid)
		}
		t.mu.Unlock()
		if err != nil && !errors.Is(err, target.ErrNoProcess) {
			t.warn("not profiling " + err.Error())
		}
		if tool == "" {
			continue
		}
		if tool == runfmt.ProfilerPerf {
			perfPIDs = append(perfPIDs, pid)
			continue
		}
		if t.covered(pid, tool) {
			continue
		}
		if t.watched(pid, tool) {
			t.mu.Lock()
			t.procs[pid].Profiler = ""
			t.mu.Unlock()
			continue
		}
		t.start(ctx, tool, []int{pid}, left)
	}
	t.watchIdle(ctx, left)
	if len(perfPIDs) > 0 {
		t.start(ctx, runfmt.ProfilerPerf, perfPIDs, left)
	}
	t.mu.Lock()
	t.refreshes++
	t.mu.Unlock()
}

// noteExits notes, once each, the processes that were seen and are gone
// (a worker that died or was recycled): their samples up to then are kept.
func (t *treeSampler) noteExits(now []int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for pid, p := range t.procs {
		if p.Profiler == "" || t.exited[pid] || slices.Contains(now, pid) {
			continue
		}
		t.exited[pid] = true
		t.exitOrder = append(t.exitOrder, pid)
	}
}

// startedNote says which processes appeared during the window.
func (t *treeSampler) startedNote() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	if len(t.exitOrder) > 0 {
		out = append(out, fmt.Sprintf("%d process(es) exited during the window (%s): the profile keeps what was sampled of them",
			len(t.exitOrder), joinPIDs(t.exitOrder)))
	}
	if len(t.started) > 0 {
		out = append(out, fmt.Sprintf("%d process(es) started during the window (%s): sampled from when they appeared",
			len(t.started), joinPIDs(t.started)))
	}
	return strings.Join(out, "; ")
}

// toolFor picks the profiler for a runtime; a missing py-spy or rbspy
// falls back to perf, with a note saying what was lost and how to fix it.
func (t *treeSampler) toolFor(runtime runfmt.Runtime) runfmt.Profiler {
	if t.forced != "" {
		want := map[runfmt.Profiler]runfmt.Runtime{runfmt.ProfilerPySpy: runfmt.RuntimePython, runfmt.ProfilerRbSpy: runfmt.RuntimeRuby}[t.forced]
		if want != "" && runtime != want {
			return "" // --profiler py-spy samples the Python processes only
		}
		return t.forced
	}
	var spy runfmt.Profiler
	var lang, install string
	switch runtime {
	case runfmt.RuntimePython:
		spy, lang, install = runfmt.ProfilerPySpy, "Python", "pip install py-spy"
	case runfmt.RuntimeRuby:
		spy, lang, install = runfmt.ProfilerRbSpy, "Ruby", "cargo install rbspy"
	default:
		return runfmt.ProfilerPerf
	}
	if t.lookTool(string(spy)) == nil {
		return spy
	}
	t.note(string(spy)+" missing", fmt.Sprintf("%s service sampled with perf: %s is not installed (%s), so the profile shows the %s interpreter's C functions, not your %s functions",
		lang, spy, install, lang, lang))
	return runfmt.ProfilerPerf
}

// noteRuntime says what a JIT runtime needs for perf to name its code.
func (t *treeSampler) noteRuntime(info target.ProcessInfo) {
	if info.PerfMap || t.forced == runfmt.ProfilerPySpy || t.forced == runfmt.ProfilerRbSpy {
		return
	}
	switch info.Runtime {
	case runfmt.RuntimeNode:
		t.note("node perf map", "node process without a perf map (/tmp/perf-PID.map): JavaScript frames show as addresses; "+
			"start it with node --perf-basic-prof-only-functions (or NODE_OPTIONS=--perf-basic-prof-only-functions) to see function names")
	}
}

func (t *treeSampler) note(key, msg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.missing[key] {
		t.missing[key] = true
		t.notes = append(t.notes, msg)
	}
}

// covered says whether an ancestor of pid is a root sampled by tool with
// --subprocesses whose recorder still runs (it follows pid itself).
func (t *treeSampler) covered(pid int, tool runfmt.Profiler) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for hops, p := 0, t.procs[pid]; p != nil && hops < 64; hops++ {
		if rt, ok := t.roots[p.PPID]; ok && rt == tool && !t.done[p.PPID] {
			return true
		}
		p = t.procs[p.PPID]
	}
	return false
}

// start records pids with tool for what is left of the window. rbspy
// follows the process's descendants itself (--subprocesses, looking for
// new ones once a second); py-spy records one process each: its
// --subprocesses looks for new children ten times a second by reading
// every process's /proc/PID/stat, which costs 1.5–2% of a core on a host
// of a hundred processes, more than sampling a process at its default
// rate, while refresh finds the service's new processes in its cgroup.
func (t *treeSampler) start(ctx context.Context, tool runfmt.Profiler, pids []int, left time.Duration) {
	follows := tool == runfmt.ProfilerRbSpy
	t.mu.Lock()
	if follows {
		t.roots[pids[0]] = tool
	}
	if tool != runfmt.ProfilerPerf {
		t.spies++
	} else {
		t.perfs++
	}
	t.mu.Unlock()
	hz := t.hz(tool)
	var recorder int
	onStart := func(pid int) {
		recorder = pid
		t.meter.started(pid, tool, runfmt.RoleCPU, hz)
		if tool == runfmt.ProfilerPySpy {
			t.mu.Lock()
			t.pySpies[pid] = pids[0]
			t.mu.Unlock()
		}
		if tool != runfmt.ProfilerPerf {
			t.recorderStarted(pid)
		}
	}
	onSampling := func() { t.spySampling(pids[0]) }
	t.wg.Go(func() {
		var prof *profile.Profile
		var err error
		var used time.Duration
		secs := left.Seconds()
		switch tool {
		case runfmt.ProfilerPySpy, runfmt.ProfilerRbSpy:
			// py-spy and rbspy take whole seconds: they are stopped (and
			// keep what they sampled) when the window ends.
			record := capture.PySpy
			if tool == runfmt.ProfilerRbSpy {
				record = capture.RbSpy
			}
			prof, err = record(t.stopAt, capture.SpyConfig{PID: pids[0], Seconds: secs, Rate: hz, Subprocesses: follows, CPUUsed: &used, OnStart: onStart, OnSampling: onSampling})
		default:
			var maps []string
			prof, err = capture.PerfRecord(ctx, capture.PerfConfig{PIDs: pids, Seconds: secs, Hz: hz, CPUUsed: &used, OnAttached: t.perfAttached,
				OnStart:      onStart,
				Stop:         t.stopAt.Done(),
				BeforeScript: func() { maps = t.jvmPerfMaps(pids) }})
			for _, m := range maps {
				_ = os.Remove(m)
			}
		}
		t.meter.exited(recorder, used)
		t.mu.Lock()
		defer t.mu.Unlock()
		if follows {
			t.done[pids[0]] = true
		}
		if err != nil {
			if errors.Is(err, capture.ErrToolMissing) && t.toolErr == nil {
				t.toolErr = err
			}
			if ctx.Err() == nil || prof == nil {
				t.notes = append(t.notes, fmt.Sprintf("%s of pid %s: %v", tool, joinPIDs(pids), err))
			}
			return
		}
		if len(prof.Sample) > 0 {
			labelPIDs(prof, pids[0])
			t.profiles = append(t.profiles, prof)
			t.tools = t.tools.With(tool)
		} else if t.idleProf == nil {
			t.idleProf = prof
			t.tools = t.tools.With(tool)
		}
	})
}

// labelPIDs gives samples without a pid label (py-spy without
// --subprocesses output) the recorded process's pid.
func labelPIDs(p *profile.Profile, pid int) {
	for _, s := range p.Sample {
		if len(s.NumLabel["pid"]) == 0 {
			if s.NumLabel == nil {
				s.NumLabel = map[string][]int64{}
			}
			s.NumLabel["pid"] = []int64{int64(pid)}
		}
	}
}

// account fills each process's samples and CPU from the merged profile and
// names processes in the comm label where the profiler did not.
func (t *treeSampler) account(p *profile.Profile) {
	ci := len(p.SampleType) - 1
	for i, st := range p.SampleType {
		if st.Type == runfmt.CPUSample {
			ci = i
		}
	}
	for _, s := range p.Sample {
		pids := s.NumLabel["pid"]
		if len(pids) == 0 {
			continue
		}
		pp := t.procs[int(pids[0])]
		if pp == nil {
			pp = &runfmt.ProcessProfile{PID: int(pids[0])} // a thread or process seen by the profiler only
			t.procs[pp.PID] = pp
		}
		pp.Samples += s.Value[0]
		pp.CPUSeconds += float64(s.Value[ci]) / 1e9
		if len(s.Label["comm"]) == 0 && pp.Cmdline != "" {
			if s.Label == nil {
				s.Label = map[string][]string{}
			}
			s.Label["comm"] = []string{pp.Cmdline}
		}
	}
}

// source is the profilers that produced samples.
func (t *treeSampler) source() runfmt.ProfilerSet {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tools
}

// processes lists the processes seen, by pid, with their share of the
// profile.
func (t *treeSampler) processes() []runfmt.ProcessProfile {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]runfmt.ProcessProfile, 0, len(t.procs))
	for _, p := range t.procs {
		p.CPUSeconds = math.Round(p.CPUSeconds*1e4) / 1e4
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b runfmt.ProcessProfile) int { return a.PID - b.PID })
	return out
}

func joinPIDs(pids []int) string {
	s := make([]string, len(pids))
	for i, p := range pids {
		s[i] = fmt.Sprint(p)
	}
	return strings.Join(s, ",")
}

// notesSnapshot returns the notes for the verdict.
func (t *treeSampler) notesSnapshot() []string {
	started := t.startedNote()
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]string(nil), t.notes...)
	if started != "" {
		out = append(out, started)
	}
	return out
}

func (t *treeSampler) perfAttached() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.perfsOn++
}

func (t *treeSampler) recorderStarted(pid int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.recorders = append(t.recorders, pid)
}

// spySampling notes that the py-spy recorder of process pid said it
// samples.
func (t *treeSampler) spySampling(pid int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sampling[pid] = true
}

// recorderStartupCPU is the CPU rbspy uses before it samples (reading the
// interpreter's symbols, tens of milliseconds).
const recorderStartupCPU = 0.02

// waitAttached waits, at most limit, until every profiler started so far
// samples: perf has acknowledged enabling its events, py-spy has said it
// samples, rbspy runs and has done its start-up work (used
// recorderStartupCPU of CPU). The measured window then starts with the
// samplers sampling, and their start-up (py-spy's takes a tenth of a
// second of CPU) is not counted in it: on a loaded machine a profiler can
// take a second of wall time to get there.
func (t *treeSampler) waitAttached(ctx context.Context, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		t.mu.Lock()
		pids := append([]int(nil), t.recorders...)
		ready := len(pids) >= t.spies && t.perfsOn >= t.perfs
		waiting := map[int]bool{} // py-spy recorders that have not said they sample
		for _, pid := range pids {
			if of, ok := t.pySpies[pid]; ok && !t.sampling[of] {
				waiting[pid] = true
			}
		}
		t.mu.Unlock()
		for _, pid := range pids {
			cpu, err := target.ProcessCPUSeconds(pid)
			if err == nil && (waiting[pid] || cpu < recorderStartupCPU) {
				ready = false // a recorder that is gone is waited for no more
			}
		}
		if ready {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// begin says the measured window starts now and lasts window: recorders
// started ahead of it (with what was then the longest it could last) stop
// at its end.
func (t *treeSampler) begin(window time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.end = time.Now().Add(window)
}

func (t *treeSampler) windowEnd() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.end
}
