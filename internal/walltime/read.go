package walltime

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"golang.org/x/exp/trace"

	"perflab/internal/runfmt"
)

// Options adjusts what counts as a request's time.
type Options struct {
	// Counts, when set, decides whether a goroutine a request goroutine
	// starts counts with it, from its start function and file: perflab
	// counts goroutines started in user code, not the standard library's
	// timers and watchers (an http.Client's timeout goroutine waits as
	// long as the call, and would count the wait twice). Nil counts all.
	Counts func(fn, file string) bool
}

// ReadWith parses a Go execution trace from r and analyses it. It reads the
// trace as a stream, keeping per-goroutine state and the distinct stacks,
// not the events. A trace that is not one, is of a Go version this build
// does not read, or ends early is an error: an analysis of part of a trace
// would charge the missing part to nothing.
func ReadWith(r io.Reader, opt Options) (a *Analysis, err error) {
	defer func() {
		// The trace comes from the service: a parser panic on a corrupt
		// one is this trace's error, not the run's end.
		if p := recover(); p != nil {
			a, err = nil, fmt.Errorf("reading the execution trace: %w: %v", ErrMalformed, p)
		}
	}()
	return read(r, opt)
}

func read(r io.Reader, opt Options) (*Analysis, error) {
	minor, br, err := readHeader(r)
	if err != nil {
		return nil, err
	}
	tr, err := trace.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("reading the execution trace: %w", err)
	}
	a := newAnalyzer()
	a.opt = opt
	a.out.GoVersion = fmt.Sprintf("1.%d", minor)
	for {
		ev, err := tr.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the execution trace: %w", readError(err))
		}
		a.event(&ev)
	}
	if a.events == 0 {
		return nil, fmt.Errorf("reading the execution trace: %w", ErrEmpty)
	}
	return a.finish(), nil
}

// ErrEmpty is a trace with no events.
var ErrEmpty = errors.New("the trace has no events")

// ErrTruncated is a trace that ends in the middle.
var ErrTruncated = errors.New("the trace ends early (cut off, or the service stopped while tracing)")

// ErrMalformed is a trace the parser rejects.
var ErrMalformed = errors.New("the trace is malformed")

func readError(err error) error {
	msg := err.Error()
	if errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(msg, "EOF") || strings.Contains(msg, "failed to read") {
		return fmt.Errorf("%w: %v", ErrTruncated, err)
	}
	return fmt.Errorf("%w: %v", ErrMalformed, err)
}

// gclass is how a goroutine relates to requests.
type gclass uint8

const (
	classUnknown gclass = iota // not decided yet
	classServing               // serves requests
	classStarted               // started by a request goroutine
	classOther                 // not a request's
)

func (c gclass) request() bool { return c == classServing || c == classStarted }

// gor is one goroutine's state during the analysis.
type gor struct {
	class    gclass
	parent   *gor // the creator, for goroutines created during the trace
	state    trace.GoState
	since    trace.Time
	wait     runfmt.Wait // the current wait, for Waiting and Runnable
	idle     bool        // the current wait is between requests
	stack    int32       // where it stopped (and will resume); -1 unknown
	assist   bool        // in a GC mark assist
	profiler bool        // serves net/http/pprof: perflab's own requests
	loop     bool        // a client connection's goroutine (clientLoopRoots)
	pending  []interval
}

// interval is time charged to a goroutine before its class is known.
type interval struct {
	stack int32
	wait  runfmt.Wait
	idle  bool
	ns    int64
}

type accKey struct {
	stack int32
	wait  runfmt.Wait
}

type span struct{ from, to trace.Time }

// holderWaits are the waits whose releasing stack names who held the lock
// or the pooled resource.
var holderWaits = map[runfmt.Wait]bool{runfmt.WaitLock: true, runfmt.WaitPool: true, runfmt.WaitCond: true}

type analyzer struct {
	opt    Options
	out    Analysis
	events int
	first  trace.Time
	last   trace.Time

	gs     map[trace.GoID]*gor
	stacks stackTable
	acc    map[accKey]int64
	// samples counts CPU samples per goroutine and stack, placed once the
	// goroutines' classes are known.
	samples map[*gor]map[int32]int
	// holders charges lock and pool waits to the stack that released them.
	holders map[int32]int64

	procBusy  time.Duration
	procSince map[trace.ProcID]trace.Time
	stw       []span
	stwOpen   trace.Time
	stwName   string
	gcOpen    trace.Time
	alive     int
}

func newAnalyzer() *analyzer {
	return &analyzer{
		gs:        map[trace.GoID]*gor{},
		stacks:    newStackTable(),
		acc:       map[accKey]int64{},
		samples:   map[*gor]map[int32]int{},
		holders:   map[int32]int64{},
		procSince: map[trace.ProcID]trace.Time{},
		stwOpen:   -1,
		gcOpen:    -1,
		out:       Analysis{Time: map[runfmt.TimeKind]time.Duration{}, ByWait: map[runfmt.Wait]time.Duration{}, StopTheWorld: map[string]time.Duration{}},
	}
}

func (a *analyzer) event(ev *trace.Event) {
	t := ev.Time()
	if a.first == 0 {
		a.first = t
	}
	a.last = t
	if ev.Kind() != trace.EventSync {
		a.events++
	}
	switch ev.Kind() {
	case trace.EventSync:
		a.sync(ev)
	case trace.EventStateTransition:
		st := ev.StateTransition()
		switch st.Resource.Kind {
		case trace.ResourceGoroutine:
			a.goTransition(ev, st)
		case trace.ResourceProc:
			a.procTransition(ev, st)
		}
	case trace.EventRangeBegin, trace.EventRangeActive:
		a.rangeBegin(ev)
	case trace.EventRangeEnd:
		a.rangeEnd(ev)
	case trace.EventStackSample:
		a.cpuSample(ev)
	case trace.EventMetric:
		if m := ev.Metric(); m.Name == "/sched/gomaxprocs:threads" {
			a.out.GOMAXPROCS = int(m.Value.Uint64())
		}
	}
}

func (a *analyzer) sync(ev *trace.Event) {
	a.stacks.newGeneration()
	if cs := ev.Sync().ClockSnapshot; cs != nil {
		wall := cs.Wall.Add(ev.Time().Sub(cs.Trace))
		if a.out.Start.IsZero() {
			a.out.Start = wall.Add(a.first.Sub(ev.Time()))
		}
	}
}

// gor returns the goroutine id, creating its state.
func (a *analyzer) gor(id trace.GoID) *gor {
	g := a.gs[id]
	if g == nil {
		g = &gor{stack: -1}
		a.gs[id] = g
	}
	return g
}

func (a *analyzer) goTransition(ev *trace.Event, st trace.StateTransition) {
	from, to := st.Goroutine()
	if from == to {
		return
	}
	id, now := st.Resource.Goroutine(), ev.Time()
	g := a.gor(id)
	switch from {
	case trace.GoNotExist:
		a.created(ev, st, g)
	case trace.GoUndetermined:
		a.alive++
	default:
		var waker *stackInfo
		if w := ev.Goroutine(); from == trace.GoWaiting && w != trace.NoGoroutine && w != id {
			waker = a.stacks.info(ev.Stack())
		}
		a.leave(g, from, now, a.stacks.info(st.Stack), waker)
	}
	a.enter(st, g, to, now)
	a.out.GoroutinesMax = max(a.out.GoroutinesMax, a.alive)
}

// created records a goroutine's creator and start function.
func (a *analyzer) created(ev *trace.Event, st trace.StateTransition, g *gor) {
	a.alive++
	a.out.GoroutinesCreated++
	var start trace.StackFrame
	for f := range st.Stack.Frames() {
		start = f
		break
	}
	parent := a.gs[ev.Goroutine()]
	g.loop = clientLoopRoots[start.Func]
	switch {
	case servingRoots[start.Func]:
		g.class = classServing
	case loopRoots[start.Func] || runtimeRoot(start.Func) || parent == nil || a.opt.Counts != nil && !a.opt.Counts(start.Func, start.File):
		g.class = classOther
	default:
		g.parent = parent
		g.class = parent.resolve()
		if g.class == classServing {
			g.class = classStarted
		}
	}
}

// resolve decides g's class from its creator's when it can.
func (g *gor) resolve() gclass {
	if g.class == classUnknown && g.parent != nil {
		switch c := g.parent.resolve(); {
		case c.request():
			g.class = classStarted
		case c == classOther:
			g.class = classOther
		}
	}
	return g.class
}

// sees decides the class of a goroutine that existed before the trace from
// a stack of its own.
func (a *analyzer) sees(g *gor, si *stackInfo) {
	if si.profiler || g.profiler {
		g.profiler, g.class, g.pending = true, classOther, nil
		return
	}
	if si.serving && g.class != classServing {
		g.class = classServing
		a.flush(g)
		return
	}
	if clientLoopRoots[si.root] {
		g.loop = true
	}
	if g.class == classUnknown && g.parent == nil && si.root != "" {
		g.class = classOther
		g.pending = nil
	}
}

// leave charges the time g spent in state from, up to now. stop is g's own
// stack at the transition (nil if none), waker the stack of the goroutine
// that woke it (nil if none).
func (a *analyzer) leave(g *gor, from trace.GoState, now trace.Time, stop, waker *stackInfo) {
	ns := int64(now.Sub(g.since))
	if g.loop && (from == trace.GoRunning || from == trace.GoRunnable) {
		a.out.ClientLoops += time.Duration(ns)
	}
	switch from {
	case trace.GoRunning:
		if stop != nil {
			g.stack = stop.id
			a.sees(g, stop)
		}
		w := runfmt.WaitCPU
		if g.assist {
			w = runfmt.WaitGCAssist
		}
		a.charge(g, g.stack, w, false, ns)
	case trace.GoRunnable:
		halt := a.stwOverlap(g.since, now)
		a.charge(g, g.stack, runfmt.WaitGCStop, false, halt)
		a.charge(g, g.stack, g.wait, false, ns-halt)
	case trace.GoWaiting:
		a.charge(g, g.stack, g.wait, g.idle, ns)
		if waker != nil && holderWaits[g.wait] && !g.idle && g.resolve().request() {
			a.holders[waker.id] += ns
		}
	case trace.GoSyscall:
		a.charge(g, g.stack, runfmt.WaitSyscall, false, ns)
	}
}

// enter starts g's new state at now.
func (a *analyzer) enter(st trace.StateTransition, g *gor, to trace.GoState, now trace.Time) {
	g.state, g.since, g.idle = to, now, false
	switch to {
	case trace.GoRunnable:
		g.wait = runfmt.WaitRunnable
	case trace.GoWaiting:
		if st.Reason == "forever" {
			a.ended(g)
			return
		}
		si := a.stacks.info(st.Stack)
		if si == nil {
			g.wait = (&stackInfo{}).wait(st.Reason)
			return
		}
		a.sees(g, si)
		g.stack, g.wait = si.id, si.wait(st.Reason)
		g.idle = si.root == connRoot && !si.handler
	case trace.GoSyscall:
		if si := a.stacks.info(st.Stack); si != nil {
			a.sees(g, si)
			g.stack = si.id
		}
	case trace.GoNotExist:
		a.ended(g)
	}
}

func (a *analyzer) ended(g *gor) {
	a.alive--
	a.out.GoroutinesEnded++
	g.state = trace.GoNotExist
	if g.resolve() != classUnknown {
		g.pending = nil
	}
}

// charge adds ns of wait at stack to g: to the request totals if g serves
// requests, to g's pending time if that is not known yet.
func (a *analyzer) charge(g *gor, stack int32, w runfmt.Wait, idle bool, ns int64) {
	if ns <= 0 {
		return
	}
	switch g.resolve() {
	case classServing, classStarted:
		a.add(stack, w, idle, ns)
	case classUnknown:
		if n := len(g.pending); n > 0 && g.pending[n-1].stack == stack && g.pending[n-1].wait == w && g.pending[n-1].idle == idle {
			g.pending[n-1].ns += ns
			return
		}
		g.pending = append(g.pending, interval{stack, w, idle, ns})
	}
}

func (a *analyzer) add(stack int32, w runfmt.Wait, idle bool, ns int64) {
	if idle {
		a.out.Idle += time.Duration(ns)
		return
	}
	a.acc[accKey{stack, w}] += ns
}

// flush charges g's pending time once g is known to serve requests.
func (a *analyzer) flush(g *gor) {
	for _, iv := range g.pending {
		a.add(iv.stack, iv.wait, iv.idle, iv.ns)
	}
	g.pending = nil
}

func (a *analyzer) procTransition(ev *trace.Event, st trace.StateTransition) {
	from, to := st.Proc()
	id, now := st.Resource.Proc(), ev.Time()
	if from == trace.ProcRunning && to != trace.ProcRunning {
		if since, ok := a.procSince[id]; ok {
			a.procBusy += now.Sub(since)
			delete(a.procSince, id)
		}
	}
	if _, ok := a.procSince[id]; to == trace.ProcRunning && !ok {
		a.procSince[id] = now
	}
}

const stwPrefix = "stop-the-world ("

func (a *analyzer) rangeBegin(ev *trace.Event) {
	r := ev.Range()
	switch {
	case strings.HasPrefix(r.Name, stwPrefix):
		if a.stwOpen < 0 {
			a.stwOpen, a.stwName = ev.Time(), strings.TrimSuffix(strings.TrimPrefix(r.Name, stwPrefix), ")")
		}
	case r.Name == "GC concurrent mark phase":
		if a.gcOpen < 0 {
			a.gcOpen = ev.Time()
			a.out.GCCycles++
		}
	case r.Name == "GC mark assist" && r.Scope.Kind == trace.ResourceGoroutine:
		a.assist(r.Scope.Goroutine(), ev.Time(), true)
	}
}

func (a *analyzer) rangeEnd(ev *trace.Event) {
	r := ev.Range()
	switch {
	case strings.HasPrefix(r.Name, stwPrefix):
		a.endSTW(ev.Time())
	case r.Name == "GC concurrent mark phase":
		if a.gcOpen >= 0 {
			a.out.GCMark += ev.Time().Sub(a.gcOpen)
			a.gcOpen = -1
		}
	case r.Name == "GC mark assist" && r.Scope.Kind == trace.ResourceGoroutine:
		a.assist(r.Scope.Goroutine(), ev.Time(), false)
	}
}

func (a *analyzer) endSTW(now trace.Time) {
	if a.stwOpen < 0 {
		return
	}
	d := now.Sub(a.stwOpen)
	a.out.StopTheWorld[a.stwName] += d
	if strings.HasPrefix(a.stwName, "GC ") {
		a.out.GCStops += d
	}
	a.stw = append(a.stw, span{a.stwOpen, now})
	a.stwOpen = -1
}

// assist starts or ends a GC mark assist of goroutine id: its running time
// up to now is charged, and from now on counts as GC or as running again.
func (a *analyzer) assist(id trace.GoID, now trace.Time, on bool) {
	g := a.gs[id]
	if g == nil || g.assist == on {
		if g != nil {
			g.assist = on
		}
		return
	}
	if g.state == trace.GoRunning {
		w := runfmt.WaitCPU
		if g.assist {
			w = runfmt.WaitGCAssist
		}
		a.charge(g, g.stack, w, false, int64(now.Sub(g.since)))
		g.since = now
	}
	g.assist = on
}

// stwOverlap is how much of [from, to] the world was stopped.
func (a *analyzer) stwOverlap(from, to trace.Time) int64 {
	var ns int64
	if a.stwOpen >= 0 && a.stwOpen < to {
		ns += int64(to.Sub(max(a.stwOpen, from)))
	}
	for i := len(a.stw) - 1; i >= 0 && a.stw[i].to > from; i-- {
		s := a.stw[i]
		if lo, hi := max(s.from, from), min(s.to, to); hi > lo {
			ns += int64(hi.Sub(lo))
		}
	}
	return ns
}

func (a *analyzer) cpuSample(ev *trace.Event) {
	g := a.gs[ev.Goroutine()]
	si := a.stacks.info(ev.Stack())
	if g == nil || si == nil {
		return
	}
	a.sees(g, si)
	m := a.samples[g]
	if m == nil {
		m = map[int32]int{}
		a.samples[g] = m
	}
	m[si.id]++
}
