package window

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"perflab/internal/ledger"
	"perflab/internal/service"
	"perflab/internal/units"
)

// PeerCPU measures the local processes behind the service's peers over
// the window: which process listens at each address the service is
// connected to (found before the window: the warm-up opened the
// connections, or they were open before perflab started: pools, gRPC
// channels) and its CPU time (with its descendants', from /proc, each
// thread's to the nanosecond) at the window's edges. A peer first
// connected during the window is found when the peer sampler first sees
// the connection (Notice), and its CPU read from then on.
type PeerCPU struct {
	service []int // the service's processes: a peer among them is not local to measure
	mu      sync.Mutex
	procs   map[netip.AddrPort]*peerProc
	tried   map[netip.AddrPort]bool // looked up during the window
	// begun and ended are the window's edges as read.
	begun, ended time.Time
}

// peerProc is the process listening at a peer's address.
type peerProc struct {
	pid       int
	name      string
	tree      []int // it and its descendants at the window's start
	start     cpuReading
	since     time.Time // its CPU first read in the window (zero: at its start)
	cpu       float64
	began, ok bool
}

// peerLookup bounds the search of a peer's process: finding the owner of
// a listening socket may read every process's file table.
const peerLookup = 2 * time.Second

// discoverPeers finds the local processes behind the outbound
// connections now open of the service's processes pids.
func discoverPeers(pids []int) *PeerCPU {
	pc := &PeerCPU{service: pids, procs: map[netip.AddrPort]*peerProc{}, tried: map[netip.AddrPort]bool{}}
	peers, err := service.NewPeerReader().Peers(pids)
	if err != nil {
		return pc
	}
	ctx, cancel := context.WithTimeout(context.Background(), peerLookup)
	defer cancel()
	for addr := range peers {
		a, err := netip.ParseAddrPort(addr)
		if err != nil {
			continue
		}
		if p := pc.lookup(ctx, a); p != nil {
			pc.procs[a] = p
		}
	}
	return pc
}

// lookup finds the process listening at a, nil when none on this machine
// (or the service itself).
func (pc *PeerCPU) lookup(ctx context.Context, a netip.AddrPort) *peerProc {
	pid, found, err := service.ListenerOwner(ctx, a.String(), nil)
	if err != nil || !found || slices.Contains(pc.service, pid) {
		return nil
	}
	return &peerProc{pid: pid, name: comm(pid), tree: service.ProcessTree(pid)}
}

// comm is a process's command name (/proc/PID/comm).
func comm(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// cpuReading is the CPU seconds of a set of processes so far: each
// thread's to the nanosecond (its schedstat), and each process's whole
// (/proc/PID/stat, exited threads included, in clock ticks of 10 ms: a
// peer answering in a fraction of a millisecond uses a few ticks in a
// window of seconds, so the threads' figure is the one used).
type cpuReading struct {
	threads map[[2]int]float64 // by process and thread
	procs   float64
}

// procTick is how much a process's CPU in /proc/PID/stat can lag its
// true figure: user and system time, each cut to a clock tick.
const procTick = 0.02

// readCPU reads pids' CPU so far (those gone count 0).
func readCPU(pids []int) cpuReading {
	r := cpuReading{threads: map[[2]int]float64{}}
	for _, pid := range pids {
		if cpu, err := service.ProcessCPUSeconds(pid); err == nil {
			r.procs += cpu
		}
		tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
		if err != nil {
			continue
		}
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			if cpu, err := service.ThreadCPUSeconds(pid, tid); err == nil {
				r.threads[[2]int{pid, tid}] = cpu
			}
		}
	}
	return r
}

// since is the CPU used between before and r: the threads' (a thread
// new since counts whole), unless threads that exited in between took
// more with them than the processes' ticks can hide.
func (r cpuReading) since(before cpuReading, procs int) float64 {
	var exact float64
	for k, v := range r.threads {
		exact += max(v-before.threads[k], 0)
	}
	if coarse := r.procs - before.procs; coarse > exact+2*procTick*float64(procs) {
		return coarse
	}
	return exact
}

// begin reads the peers' CPU as the window starts. Nil-safe.
func (pc *PeerCPU) begin() {
	if pc == nil {
		return
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	pc.begun = time.Now()
	for _, p := range pc.procs {
		p.start, p.began = readCPU(p.tree), true
	}
}

// Notice looks up the processes behind addresses the service is connected
// to that were not known at the window's start (a connection first opened
// during it), and reads their CPU from now on. Nil-safe; a lookup is made
// once per address.
func (pc *PeerCPU) Notice(addrs []netip.AddrPort) {
	if pc == nil {
		return
	}
	var fresh []netip.AddrPort
	pc.mu.Lock()
	for _, a := range addrs {
		if _, ok := pc.procs[a]; !ok && !pc.tried[a] {
			pc.tried[a] = true
			fresh = append(fresh, a)
		}
	}
	pc.mu.Unlock()
	if len(fresh) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), peerLookup)
	defer cancel()
	for _, a := range fresh {
		p := pc.lookup(ctx, a)
		if p == nil {
			continue
		}
		start := readCPU(p.tree)
		pc.mu.Lock()
		if !pc.begun.IsZero() && pc.ended.IsZero() {
			p.start, p.since, p.began = start, time.Now(), true
		}
		pc.procs[a] = p
		pc.mu.Unlock()
	}
}

// end reads the peers' CPU as the window ends. Nil-safe.
func (pc *PeerCPU) end() {
	if pc == nil {
		return
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	pc.ended = time.Now()
	for _, p := range pc.procs {
		if p.began {
			p.cpu, p.ok = readCPU(p.tree).since(p.start, len(p.tree)), true
		}
	}
}

// minCPUShare is the least part of the window a peer's CPU is read over
// for it to stand for the window's.
const minCPUShare = 0.25

// Inputs are the ledger's peers for the addresses the kernel timed
// answers of: those found before the window with their CPU, the others
// looked up now.
func (pc *PeerCPU) Inputs(addrs []netip.AddrPort) map[netip.AddrPort]ledger.Peer {
	out := map[netip.AddrPort]ledger.Peer{}
	if pc == nil {
		return out
	}
	ctx, cancel := context.WithTimeout(context.Background(), peerLookup)
	defer cancel()
	pc.mu.Lock()
	defer pc.mu.Unlock()
	for _, a := range addrs {
		p, ok := pc.procs[a]
		if !ok {
			if p = pc.lookup(ctx, a); p == nil {
				continue
			}
			out[a] = ledger.Peer{PID: p.pid, Name: p.name, CPUWhy: fmt.Sprintf("connected during the window, never open at the looks %s apart: its CPU was not read", units.FormatDuration(peerInterval))}
			continue
		}
		in := ledger.Peer{PID: p.pid, Name: p.name, CPU: time.Duration(p.cpu * float64(time.Second))}
		switch {
		case !p.ok:
			in.CPUWhy = "its CPU was not read at the window's edges"
		case !p.since.IsZero():
			// First connected during the window: its CPU from then on,
			// per request over that part of the window.
			in.CPUShare = pc.ended.Sub(p.since).Seconds() / pc.ended.Sub(pc.begun).Seconds()
			if in.CPUShare < minCPUShare {
				in.CPUWhy = fmt.Sprintf("first connected %s into the window: its CPU was read over too little of it", units.FormatDuration(p.since.Sub(pc.begun).Round(time.Millisecond)))
			}
		}
		out[a] = in
	}
	return out
}
