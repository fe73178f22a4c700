package lab

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"perflab/internal/ktrace"
)

// kernelTiming is the kernel's timing of the service (internal/ktrace)
// over the measured window: a session on the service's processes and the
// load's listening ports, started as the warm-up starts (loading the
// kernel programs takes 0.2–0.6 s, more on a busy machine: the warm-up
// hides it), read at the window's edges, following the processes the
// service adds, closed after the window. why says why there is none.
type kernelTiming struct {
	ports   []uint16
	backlog bool // the accept backlog is timed
	conns   *conns
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
	peers         *peerCPU
}

// noWarmupWait is how long a window without a warm-up waits for the
// kernel's programs to load (0.2–0.6 s here): a window that starts
// before they are loaded goes without them.
const noWarmupWait = time.Second

// addInterval is how often the service's process list is compared with
// the processes the session measures: a worker the service starts other
// than by a fork (a cgroup's new process) is added.
const addInterval = time.Second

// markConns starts the kernel's timing as the warm-up starts, and watches
// the warm-up's connections (see shortConns).
func (s *session) markConns() {
	s.kern = &kernelTiming{conns: s.watchConns()}
	s.kern.launch(s, s.cfg.Load.DisableKeepAlive)
}

// startKernel makes sure the kernel's timing runs for the window: started
// now when there was no warm-up (in the background: a window that starts
// before its programs are loaded goes without), started again with the
// accept backlog when the warm-up opened a connection per request; and it
// finds the local processes behind the service's peers.
func (s *session) startKernel() {
	if s.kern == nil {
		s.kern = &kernelTiming{}
		s.kern.launch(s, s.cfg.Load.DisableKeepAlive)
		select { // a moment for the programs to load; the window does not wait longer
		case <-s.kern.ready:
		case <-time.After(noWarmupWait):
		}
	}
	k := s.kern
	if s.proc == nil {
		return
	}
	if !k.backlog && s.shortConns(k.conns) {
		<-k.ready
		k.close()
		k.launch(s, true)
		<-k.ready
	}
	k.peers = discoverPeers(s.proc.PIDs())
}

// launch starts a session in the background; ready closes once it runs or
// failed.
func (k *kernelTiming) launch(s *session, backlog bool) {
	k.ready, k.backlog = make(chan struct{}), backlog
	if s.proc == nil {
		k.why = "no process of the service to time (give -- CMD, --pid or --cgroup)"
		close(k.ready)
		return
	}
	k.ports = s.targetPorts()
	pids := s.proc.PIDs()
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
		k.stop = goUntilStopped(func(ctx context.Context) { k.follow(ctx, sess, s.proc.PIDs) })
	}()
}

// targetPorts are the ports of the load's targets: the service's listening
// ports whose connections are the requests.
func (s *session) targetPorts() []uint16 {
	var out []uint16
	for _, t := range s.cfg.Load.Targets {
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
func (k *kernelTiming) follow(ctx context.Context, sess *ktrace.Session, pids func() []int) {
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

// begin reads the session as the window starts; a session still
// starting misses the window. Nil-safe.
func (k *kernelTiming) begin() {
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

// end reads the session as the window ends. Nil-safe; only the first
// call after begin counts.
func (k *kernelTiming) end() {
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

// close stops following the processes and detaches the programs (once a
// start under way is done); the readings stay. Nil-safe.
func (k *kernelTiming) close() {
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

// window is the window's totals; ok is false, with why, when there are
// none.
func (k *kernelTiming) window() (w ktrace.Totals, ok bool, why string) {
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

// added says why a process the service added could not be measured ("":
// none failed).
func (k *kernelTiming) added() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.addWhy
}
