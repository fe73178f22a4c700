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
	"perflab/internal/target"
)

// kernelTiming is the kernel's timing of the service (internal/ktrace)
// over the measured window: a session started before the window on the
// service's processes and the load's listening ports, read at the
// window's edges, following the processes the service adds, closed after
// the window. why says why there is none.
type kernelTiming struct {
	// short says the warm-up's connections churned (a connection per
	// request); marks is closed once it is known.
	short bool
	marks chan struct{}

	sess    *ktrace.Session
	why     string
	ports   []uint16
	backlog bool // the accept backlog is timed
	stop    func()

	mu            sync.Mutex
	known         map[int]bool // processes measured or added
	before, after ktrace.Totals
	readWhy       string // a reading failed
	begun, ended  bool
	peers         *peerCPU
}

// addInterval is how often the service's process list is compared with
// the processes the session measures: a worker the service starts other
// than by a fork (a cgroup's new process) is added.
const addInterval = time.Second

// markConns lists the service's sockets as the warm-up starts and four
// times during it, to tell at the window whether the load opens a
// connection per request (see shortConns).
func (s *session) markConns() {
	k := &kernelTiming{known: map[int]bool{}, marks: make(chan struct{})}
	s.kern = k
	if s.proc == nil {
		close(k.marks)
		return
	}
	start := target.SocketInodes(s.proc.PIDs())
	step := s.cfg.Warmup / 5
	go func() {
		defer close(k.marks)
		var lists [][]uint64
		for range 4 {
			select {
			case <-time.After(step):
			case <-s.proc.Exited():
				return
			}
			lists = append(lists, target.SocketInodes(s.proc.PIDs()))
		}
		k.short = churned(start, lists)
	}()
}

// churned says whether the connections the service held during the
// warm-up (the sockets of lists not in start: start has its listening
// sockets) came and went: many more of them over the lists than it ever
// held at once, or none held at all. Keep-alive connections stay, the
// same ones at every look.
func churned(start []uint64, lists [][]uint64) bool {
	seen := map[uint64]bool{}
	most := 0
	for _, l := range lists {
		held := 0
		for _, ino := range l {
			if !slices.Contains(start, ino) {
				seen[ino] = true
				held++
			}
		}
		most = max(most, held)
	}
	return len(seen) == 0 || len(seen) >= 2*most
}

// shortConns says whether the load opens connections per request (or the
// service closes them): without keep-alive, or when the warm-up's
// connections churned. Timing the accept backlog costs a kernel program on
// every system call of the machine, so it is done only then.
func (s *session) shortConns() bool {
	if s.cfg.Load.DisableKeepAlive {
		return true
	}
	k := s.kern
	if k == nil || k.marks == nil {
		return false
	}
	<-k.marks
	return k.short
}

// startKernel starts the kernel's timing of the service for the window.
func (s *session) startKernel() {
	if s.kern == nil { // no warm-up: nothing tells short connections
		s.kern = &kernelTiming{known: map[int]bool{}}
	}
	k := s.kern
	if s.proc == nil {
		k.why = "no process of the service to time (give -- CMD, --pid or --cgroup)"
		return
	}
	k.ports = s.loadPorts()
	pids := s.proc.PIDs()
	k.backlog = s.shortConns()
	sess, err := ktrace.Start(ktrace.Config{PIDs: pids, Ports: k.ports, AcceptBacklog: k.backlog})
	if err != nil {
		k.why = strings.TrimPrefix(oneLine(err.Error()), ktrace.ErrUnavailable.Error()+": ")
		if !errors.Is(err, ktrace.ErrUnavailable) {
			k.why = "starting it failed: " + k.why
		}
		return
	}
	k.sess = sess
	for _, pid := range pids {
		k.known[pid] = true
	}
	k.peers = discoverPeers(pids)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		k.follow(ctx, s.proc.PIDs)
	}()
	k.stop = func() { cancel(); <-done }
}

// loadPorts are the ports of the load's targets: the service's listening
// ports whose connections are the requests.
func (s *session) loadPorts() []uint16 {
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
func (k *kernelTiming) follow(ctx context.Context, pids func() []int) {
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
		if len(fresh) > 0 {
			k.sess.AddPIDs(fresh...) // a process gone meanwhile is not an error worth a word
		}
	}
}

// begin reads the session as the window starts. Nil-safe.
func (k *kernelTiming) begin() {
	if k == nil || k.sess == nil {
		return
	}
	k.peers.begin()
	t, err := k.sess.Read()
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
	if k == nil || k.sess == nil || !k.begun || k.ended {
		return
	}
	t, err := k.sess.Read()
	k.peers.end()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.after, k.ended = t, err == nil
	if err != nil {
		k.readWhy = "reading it at the window's end: " + err.Error()
	}
}

// close stops following the processes and detaches the programs; the
// readings stay. Nil-safe.
func (k *kernelTiming) close() {
	if k == nil || k.sess == nil {
		return
	}
	if k.stop != nil {
		k.stop()
		k.stop = nil
	}
	if err := k.sess.Close(); err != nil {
		k.readWhy = "closing it: " + err.Error()
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
	case k.sess == nil:
		return w, false, k.why
	case !k.begun || !k.ended:
		if k.readWhy != "" {
			return w, false, k.readWhy
		}
		return w, false, "the window was cut short before it was read"
	}
	return k.after.Sub(k.before), true, ""
}

// droppedTables names the kernel tables of ktrace.Dropped.
func droppedTables(d ktrace.Dropped) map[string]uint64 {
	out := map[string]uint64{}
	for name, n := range map[string]uint64{"processes not followed": d.Targets, "threads": d.Threads, "connections": d.Conns,
		"processes' totals": d.Procs, "off-CPU waits": d.OffCPU, "ports and peers": d.Flows, "stacks": d.Stacks,
		"connections before accept": d.Pending, "program runs skipped": d.Recursion} {
		if n > 0 {
			out[name] = n
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func portList(ports []uint16) []int {
	out := make([]int, len(ports))
	for i, p := range ports {
		out[i] = int(p)
	}
	return out
}
