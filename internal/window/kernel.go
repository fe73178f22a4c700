package window

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"perflab/internal/ktrace"
	"perflab/internal/load"
	"perflab/internal/service"
)

// Kernel is the kernel's timing of the service (internal/ktrace)
// over the measured window: a session on the service's processes and the
// load's listening ports, started as the warm-up starts (loading the
// kernel programs takes 0.2–0.6 s, more on a busy machine: the warm-up
// hides it), read at the window's edges, following the processes the
// service adds, closed after the window. why says why there is none.
type Kernel struct {
	proc    *service.Process // nil: no process to time
	ports   []uint16
	backlog bool // the accept backlog is timed
	conns   *Conns
	// ready is closed once the session has started (or failed: why).
	ready chan struct{}
	stop  func()

	mu            sync.Mutex
	sess          *ktrace.Session
	why           string
	known         map[int]bool // processes measured or added
	before, after ktrace.Totals
	readWhy       string // a reading failed
	addWhy        string // adding a process failed
	begun, ended  bool
	peers         *PeerCPU
}

// addInterval is how often the service's process list is compared with
// the processes the session measures: a worker the service starts other
// than by a fork (a cgroup's new process) is added.
const addInterval = time.Second

// StartKernel starts the kernel's timing of the service's processes proc
// (nil: none, and the timing says why) and the load's ports, in the
// background, with the accept backlog when backlog is set; conns, when
// set, watches the warm-up's connections (see ForWindow).
func StartKernel(proc *service.Process, ports []uint16, backlog bool, conns *Conns) *Kernel {
	k := &Kernel{proc: proc, ports: ports, conns: conns}
	k.launch(backlog)
	return k
}

// Wait waits until the timing has started (or failed), at most d.
func (k *Kernel) Wait(d time.Duration) {
	select {
	case <-k.ready:
	case <-time.After(d):
	}
}

// ForWindow makes sure the timing runs for the window: started again
// with the accept backlog when the load opens a connection per request
// (noKeepAlive, or the warm-up's connections churned); and it finds the
// local processes behind the service's peers (pids: its processes).
func (k *Kernel) ForWindow(noKeepAlive bool, pids []int) {
	if !k.backlog && (noKeepAlive || k.conns.Short()) {
		<-k.ready
		k.Close()
		k.launch(true)
		<-k.ready
	}
	k.peers = discoverPeers(pids)
}

// launch starts a session in the background; ready closes once it runs or
// failed.
func (k *Kernel) launch(backlog bool) {
	k.ready, k.backlog = make(chan struct{}), backlog
	if k.proc == nil {
		k.why = "no process of the service to time (give -- CMD, --pid or --cgroup)"
		close(k.ready)
		return
	}
	proc := k.proc
	pids := proc.PIDs()
	go func() {
		defer close(k.ready)
		sess, err := ktrace.Start(ktrace.Config{PIDs: pids, Ports: k.ports, AcceptBacklog: backlog})
		k.mu.Lock()
		defer k.mu.Unlock()
		if err != nil {
			k.why = strings.TrimPrefix(oneLine(err.Error()), ktrace.ErrUnavailable.Error()+": ")
			if !errors.Is(err, ktrace.ErrUnavailable) {
				k.why = "starting it failed: " + k.why
			}
			return
		}
		k.sess, k.why, k.known = sess, "", map[int]bool{}
		for _, pid := range pids {
			k.known[pid] = true
		}
		k.stop = RunUntilStopped(func(ctx context.Context) { k.follow(ctx, sess, proc.PIDs) })
	}()
}

// Ports are the ports of the load's targets: the service's listening
// ports whose connections are the requests.
func Ports(targets []load.Target) []uint16 {
	var out []uint16
	for _, t := range targets {
		port := t.URL.Port()
		if port == "" {
			port = map[string]string{"https": "443"}[t.URL.Scheme]
			if port == "" {
				port = "80"
			}
		}
		if p, err := strconv.ParseUint(port, 10, 16); err == nil && p > 0 && !slices.Contains(out, uint16(p)) {
			out = append(out, uint16(p))
		}
	}
	return out
}

// follow adds the service's new processes to the session until ctx ends.
func (k *Kernel) follow(ctx context.Context, sess *ktrace.Session, pids func() []int) {
	tick := time.NewTicker(addInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		var fresh []int
		k.mu.Lock()
		for _, pid := range pids() {
			if !k.known[pid] {
				k.known[pid] = true
				fresh = append(fresh, pid)
			}
		}
		k.mu.Unlock()
		if len(fresh) == 0 {
			continue
		}
		if err := sess.AddPIDs(fresh...); err != nil {
			k.mu.Lock()
			k.addWhy = err.Error() // the figures miss that process
			k.mu.Unlock()
		}
	}
}

// Begin reads the session as the window starts; a session still
// starting misses the window. Nil-safe.
func (k *Kernel) Begin() {
	if k == nil {
		return
	}
	select {
	case <-k.ready:
	default:
		k.mu.Lock()
		k.readWhy = "its programs were still loading when the window started (a warm-up gives them the time: --warmup)"
		k.mu.Unlock()
		return
	}
	k.mu.Lock()
	sess := k.sess
	k.mu.Unlock()
	if sess == nil {
		return
	}
	k.peers.begin()
	t, err := sess.Read()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.before, k.begun = t, err == nil
	if err != nil {
		k.readWhy = "reading it at the window's start: " + err.Error()
	}
}

// End reads the session as the window ends. Nil-safe; only the first
// call after Begin counts.
func (k *Kernel) End() {
	if k == nil {
		return
	}
	k.mu.Lock()
	sess, read := k.sess, k.begun && !k.ended
	k.mu.Unlock()
	if sess == nil || !read {
		return
	}
	t, err := sess.Read()
	k.peers.end()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.after, k.ended = t, err == nil
	if err != nil {
		k.readWhy = "reading it at the window's end: " + err.Error()
	}
}

// Close stops following the processes and detaches the programs (once a
// start under way is done); the readings stay. Nil-safe.
func (k *Kernel) Close() {
	if k == nil || k.ready == nil {
		return
	}
	<-k.ready
	k.mu.Lock()
	sess, stop := k.sess, k.stop
	k.sess, k.stop = nil, nil
	k.mu.Unlock()
	if stop != nil {
		stop()
	}
	if sess == nil {
		return
	}
	if err := sess.Close(); err != nil {
		k.mu.Lock()
		k.readWhy = "closing it: " + err.Error()
		k.mu.Unlock()
	}
}

// Window is the window's totals; ok is false, with why, when there are
// none. Nil-safe.
func (k *Kernel) Window() (w ktrace.Totals, ok bool, why string) {
	if k == nil {
		return w, false, "not started"
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	switch {
	case k.begun && k.ended:
		return k.after.Sub(k.before), true, ""
	case k.why != "":
		return w, false, k.why
	case k.readWhy != "":
		return w, false, k.readWhy
	}
	return w, false, "the window was cut short before it was read"
}

// Added says why a process the service added could not be measured ("":
// none failed).
func (k *Kernel) Added() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.addWhy
}

// Timed are the load's ports the session times, and whether their accept
// backlog is.
func (k *Kernel) Timed() (ports []uint16, backlog bool) { return k.ports, k.backlog }

// Peers are the local processes behind the service's peers, found by
// ForWindow; nil before.
func (k *Kernel) Peers() *PeerCPU { return k.peers }

// RunUntilStopped runs a sampler's run in a goroutine until stop cancels
// its context; stop returns once run has.
func RunUntilStopped(run func(context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

func oneLine(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ") }
