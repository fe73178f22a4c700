package profiling

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// samplerLead is how long before the measured window the samplers start,
// at most: the window starts as soon as every recorder has attached. A
// JVM on a busy 2-core machine takes up to 3 s to open its attach socket
// and start async-profiler's agent; py-spy and perf attach within a
// second.
const samplerLead = 5 * time.Second

// treeRefresh is how often the sampler looks for processes the service
// forked (pre-fork workers, replaced workers) during the window: as often
// as py-spy --subprocesses looks for children, but in the service's
// cgroup (or its process tree), not in every process of the host.
const treeRefresh = 100 * time.Millisecond

// treeSampler profiles every process of the service over the window, each
// with the registry's profiler for its runtime: py-spy for each Python
// process, rbspy --subprocesses for a Ruby process tree, perf -p for the
// rest. Processes that appear during the window are picked up within
// treeRefresh (a profiler that Follows follows its root's children
// itself; a new process outside a followed tree gets its own recorder).
// The recordings are merged into one profile whose samples keep pid and
// comm labels.
type treeSampler struct {
	reg    *Registry // the profilers to pick from; nil is Default
	forced *Profiler // --profiler perf, py-spy or rbspy; nil decides per process
	// stopAt ends at the window's end (or with the run): the recorders
	// stop then and keep what they sampled.
	stopAt context.Context
	// onStart, if set, is called once the first recorders are started;
	// atEnd, if set, when the window ends, before they are stopped.
	onStart, atEnd func()
	// begun and end are when the window starts and ends (set by begin
	// when the samplers start ahead of it).
	begun, end time.Time
	hz         func(*Profiler) int // the rate of each profiler
	meter      *profilerMeter
	list       func() []int
	warn       func(string)
	lookTool   func(*Profiler) error // whether a profiler is installed

	// idle are the processes idle through the warm-up (see idleUnderLoad);
	// watch those of them not sampled yet.
	idle  map[int]bool
	watch map[int]watchEntry

	mu sync.Mutex
	// recs are the recorders started, in order.
	recs     []*recorder
	procs    map[int]*runfmt.ProcessProfile
	roots    map[int]*Profiler // the roots of profilers that Follow: pid -> profiler
	done     map[int]bool      // roots whose recorder has ended
	profiles []*profile.Profile
	// idleProf is the first recording that worked and has no sample (the
	// process was idle); toolErr the first recorder that could not start
	// because its profiler is not installed.
	idleProf *profile.Profile
	toolErr  error
	tools    runfmt.ProfilerSet
	notes    []string
	missing  map[string]bool
	// unwind is how perf walked the stacks: DWARF when any recording
	// did, else frame pointers; zero when perf did not record.
	unwind unwinding
	// refreshes counts the looks at the process list; started are the
	// processes first seen after the first, exited those seen gone.
	refreshes int
	started   []int
	exited    map[int]bool
	exitOrder []int
	// unsampled is the CPU of each worker started in the window before
	// it was sampled; ownExes the executables of the processes seen at
	// the first look (a worker runs its master's).
	unsampled map[int]float64
	ownExes   map[string]bool
	wg        sync.WaitGroup
}

// newTreeSampler samples the processes of svc, with the profiler forced
// or (nil) with reg's for each runtime.
func newTreeSampler(svc *service.Process, reg *Registry, forced *Profiler, warn func(string), idle map[int]bool) *treeSampler {
	return &treeSampler{
		reg: reg, forced: forced, list: svc.PIDs, warn: warn, idle: idle, watch: map[int]watchEntry{},
		lookTool: (*Profiler).installed,
		procs:    map[int]*runfmt.ProcessProfile{}, roots: map[int]*Profiler{}, done: map[int]bool{},
		missing: map[string]bool{}, exited: map[int]bool{}, unsampled: map[int]float64{},
		ownExes: map[string]bool{},
	}
}

// run samples until the window ends (or ctx is cancelled, keeping what was
// recorded) and returns the merged profile. With no sample at all it is an
// idle process's empty recording, else the error of a profiler that is
// not installed (naming how to install it), else an error.
func (t *treeSampler) run(ctx context.Context, window time.Duration) (*profile.Profile, error) {
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	t.stopAt = rctx
	t.mu.Lock()
	if t.end.IsZero() { // no lead: the window starts now
		t.begun = time.Now()
		t.end = t.begun.Add(window)
	}
	t.mu.Unlock()
	t.sample(ctx)
	stop() // the recorders stop and keep what they sampled
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

// sample starts recorders for the service's processes, and for those it
// forks, until the window ends or ctx does.
func (t *treeSampler) sample(ctx context.Context) {
	for first := true; ; first = false {
		t.refresh(ctx, time.Until(t.windowEnd()))
		if first && t.onStart != nil {
			t.onStart()
		}
		left := time.Until(t.windowEnd())
		if left <= 0 {
			t.unsampledAtEnd()
			if t.atEnd != nil {
				t.atEnd()
			}
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(min(treeRefresh, left)):
		}
	}
}

// refresh starts recorders for the service's processes not sampled yet.
func (t *treeSampler) refresh(ctx context.Context, left time.Duration) {
	if left < 100*time.Millisecond {
		return
	}
	groups := map[*Profiler][]service.ProcessInfo{}
	now := t.list()
	t.noteExits(now)
	for _, pid := range now {
		tool, info, ok := t.see(pid)
		switch {
		case !ok || tool == nil, t.covered(pid, tool):
		case t.watched(info, tool):
			t.setProfiler(pid, "")
		case tool.Sampling.Groups:
			groups[tool] = append(groups[tool], info)
		default:
			t.start(ctx, tool, []service.ProcessInfo{info}, left)
		}
	}
	t.watchIdle(ctx, left)
	for tool, infos := range groups {
		t.start(ctx, tool, infos, left)
	}
	t.mu.Lock()
	t.refreshes++
	t.mu.Unlock()
}

// see looks at a process not seen before (false for one seen) and picks
// its profiler, nil for none.
func (t *treeSampler) see(pid int) (*Profiler, service.ProcessInfo, bool) {
	t.mu.Lock()
	_, seen := t.procs[pid]
	t.mu.Unlock()
	if seen {
		return nil, service.ProcessInfo{}, false
	}
	info, err := service.DetectRuntime(pid)
	var tool *Profiler
	var name runfmt.Profiler
	if err == nil {
		tool = t.toolFor(info.Runtime)
	}
	if tool != nil {
		name = tool.Name
		if key, msg := tool.noteProcess(info); key != "" {
			t.note(key, msg)
		}
	}
	t.mu.Lock()
	t.procs[pid] = &runfmt.ProcessProfile{PID: pid, PPID: info.PPID, Runtime: info.Runtime, Exe: info.Exe, Cmdline: info.Cmdline, Profiler: name}
	if t.refreshes > 0 {
		t.started = append(t.started, pid)
	} else if info.Exe != "" {
		t.ownExes[info.Exe] = true
	}
	t.mu.Unlock()
	if err != nil && !errors.Is(err, service.ErrNoProcess) {
		t.warn("not profiling " + err.Error())
	}
	info.PID = pid
	return tool, info, true
}

// setProfiler records the profiler that samples pid ("" for none yet).
func (t *treeSampler) setProfiler(pid int, name runfmt.Profiler) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.procs[pid].Profiler = name
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

// toolFor picks the profiler for a runtime from the registry; a missing
// one falls back to the profiler of every runtime (perf), with a note
// saying what was lost and how to fix it. A forced profiler samples the
// processes of its runtimes only.
func (t *treeSampler) toolFor(rt runfmt.Runtime) *Profiler {
	if t.forced != nil {
		if t.forced.serves(rt) {
			return t.forced
		}
		return nil // --profiler py-spy samples the Python processes only
	}
	reg := t.registry()
	pr, all := reg.forRuntime(rt), reg.forAll()
	if pr == nil || pr == all || all == nil || pr.Sampling.InService || t.lookTool(pr) == nil {
		return pr
	}
	t.note(string(pr.Name)+" missing", pr.missing(rt, all))
	return all
}

// registry is the registry the sampler picks from.
func (t *treeSampler) registry() *Registry {
	if t.reg == nil {
		return Default()
	}
	return t.reg
}

// language is a runtime's name as a language: "Python" for python.
func language(rt runfmt.Runtime) string {
	s := string(rt)
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func (t *treeSampler) note(key, msg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.missing[key] {
		t.missing[key] = true
		t.notes = append(t.notes, msg)
	}
}

// unwound keeps how a perf recording walks its stacks: DWARF wins.
func (t *treeSampler) unwound(u unwinding) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.unwind.how != runfmt.UnwindDWARF {
		t.unwind = u
	}
}

// unwinding is how perf walked the stacks (see unwound).
func (t *treeSampler) unwinding() unwinding {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.unwind
}

// covered says whether an ancestor of pid is a root followed by tool
// whose recorder still runs (it follows pid itself).
func (t *treeSampler) covered(pid int, tool *Profiler) bool {
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

func joinPIDs(pids []int) string {
	s := make([]string, len(pids))
	for i, p := range pids {
		s[i] = fmt.Sprint(p)
	}
	return strings.Join(s, ",")
}

// notesSnapshot returns the notes for the verdict.
func (t *treeSampler) notesSnapshot() []string {
	started, unsampled := t.startedNote(), t.unsampledNote()
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]string(nil), t.notes...)
	for _, n := range []string{started, unsampled} {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}

// begin says the measured window starts now and lasts window: recorders
// started ahead of it (with what was then the longest it could last) stop
// at its end.
func (t *treeSampler) begin(window time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.begun = time.Now()
	t.end = t.begun.Add(window)
}

func (t *treeSampler) windowEnd() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.end
}
