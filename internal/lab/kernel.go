package lab

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/procfs"

	"perflab/internal/ktrace"
)

// kernelTiming is the kernel's timing of the service (internal/ktrace)
// over the measured window: a session started before the window on the
// service's processes and the load's listening ports, read at the
// window's edges, following the processes the service adds, closed after
// the window. why says why there is none.
type kernelTiming struct {
	// conns is the service's network namespace's accepted connections
	// as the warm-up started (connsMarked: read).
	conns       float64
	connsMarked bool

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

// markConns reads the service's network namespace's count of accepted
// connections as the warm-up starts, to tell at the window whether the
// load opens a connection per request (see shortConns).
func (s *session) markConns() {
	k := &kernelTiming{known: map[int]bool{}}
	k.conns, k.connsMarked = passiveOpens(s.mainPID())
	s.kern = k
}

// passiveOpens is the TCP connections accepted so far in pid's network
// namespace (/proc/PID/net/snmp).
func passiveOpens(pid int) (float64, bool) {
	if pid <= 0 {
		return 0, false
	}
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0, false
	}
	snmp, err := p.Snmp()
	if err != nil || snmp.PassiveOpens == nil {
		return 0, false
	}
	return *snmp.PassiveOpens, true
}

// shortConns says whether the load opens connections per request (or the
// service closes them): without keep-alive, or when the warm-up opened
// many more connections than the load keeps. Timing the accept backlog
// costs a kernel program on every system call of the machine, so it is
// done only then.
func (s *session) shortConns() bool {
	l := s.cfg.Load
	if l.DisableKeepAlive {
		return true
	}
	if s.kern == nil || !s.kern.connsMarked {
		return false
	}
	now, ok := passiveOpens(s.mainPID())
	if !ok {
		return false
	}
	keep := l.Concurrency
	if l.Open() {
		keep = l.MaxInflight // the open model keeps up to that many
	}
	keep = max(keep, 8)
	return now-s.kern.conns > float64(4*keep+20)
}

// startKernel starts the kernel's timing of the service for the window.
func (s *session) startKernel() {
	if s.kern == nil {
		s.markConns()
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

func portsText(ports []uint16) string {
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = fmt.Sprint(p)
	}
	return strings.Join(s, ", ")
}
