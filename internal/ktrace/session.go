package ktrace

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
)

// Config says what a session measures.
type Config struct {
	// PIDs are the processes (thread group ids) measured; the processes
	// they fork during the session are measured too. Session.AddPIDs adds
	// others.
	PIDs []int
	// Ports are listening ports of the service besides those its
	// processes listen on, which are found at Start and AddPIDs and at
	// each listen(). Connections established on a listening port are
	// inbound, followed from the handshake's end (so a request sent
	// before accept() is seen); those the processes open are outbound.
	// Connections open at Start or AddPIDs are taken up then, inbound
	// when on a listening port.
	Ports []uint16
	// Stacks records the user stack of every off-CPU interval
	// (Wait.Stack). It costs a walk of the user stack (by frame pointers)
	// per switch-out of a measured thread, about 35 ns more a switch-out
	// for a Go HTTP service (bench/ktrace-cost.sh), and up to 8 MiB of
	// kernel memory for the stack table.
	Stacks bool
	// AcceptBacklog measures Inbound.Backlog. accept() returning is seen
	// at the accept calls' own tracepoints (syscalls:sys_exit_accept4
	// and sys_exit_accept), which still route every system call of the
	// machine through the kernel's slower exit path; on a kernel without
	// them, by a program on every system call's return. It is asked for
	// where connections are short (a new one per request).
	AcceptBacklog bool
	// SchedulerOnly attaches the scheduler's programs alone (a batch
	// program's threads): no socket program runs on the machine's socket
	// operations, and the TCP measures say "not asked for".
	SchedulerOnly bool
}

// Session is kernel programs attached for a set of processes; its totals
// grow until Close. A Session is safe for concurrent use.
type Session struct {
	mu         sync.Mutex
	maps       map[string]*ebpf.Map
	progs      map[string]*ebpf.Program // all, iterators included
	iters      map[string]*ebpf.Program
	links      []link.Link
	stats      *statsSampler // the kernel's run-time statistics, part of the time
	unmeasured map[Measure]string
}

// Start loads and attaches the kernel programs for cfg. It fails, with an
// error wrapping ErrUnavailable and saying why, when none could be
// attached; when only some could, Totals.Unmeasured says which measures
// lack which and why. The caller must Close the session.
func Start(cfg Config) (*Session, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if err := precheck(os.Stat); err != nil {
		return nil, err
	}
	spec, err := loadSpec()
	if err != nil {
		return nil, unavailable("%v", err)
	}
	return start(spec, cfg)
}

func (cfg Config) validate() error {
	for _, pid := range cfg.PIDs {
		if pid <= 0 {
			return fmt.Errorf("ktrace: process id %d: not a process", pid)
		}
	}
	for _, port := range cfg.Ports {
		if port == 0 {
			return errors.New("ktrace: port 0: not a listening port")
		}
	}
	return nil
}

// AddPIDs adds processes to measure (a worker started by other means than
// a fork of a measured process), taking up their listening ports and open
// connections.
func (s *Session) AddPIDs(pids ...int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.maps == nil {
		return errors.New("ktrace: session closed")
	}
	for _, pid := range pids {
		if pid <= 0 {
			return fmt.Errorf("ktrace: process id %d: not a process", pid)
		}
		if err := setBit(s.maps["targets"], uint32(pid)); err != nil {
			return fmt.Errorf("ktrace: measuring process %d: %w", pid, err)
		}
	}
	return s.takeUp()
}

// setBit sets bit n of a bitmap map (an array of 64-bit words). A kernel
// program setting another bit of the same word at the same moment (a fork)
// could be undone: the window is a map update's, and forks of measured
// processes land in it only by chance of pid.
func setBit(bitmap *ebpf.Map, n uint32) error {
	var w uint64
	if err := bitmap.Lookup(n/64, &w); err != nil {
		return err
	}
	return bitmap.Update(n/64, w|1<<(n%64), ebpf.UpdateExist)
}

// Close detaches the programs, frees the maps and restores the kernel's
// run-time statistics setting. Totals read before stay valid.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.maps == nil {
		return nil
	}
	var errs []error
	if s.stats != nil {
		errs = append(errs, s.stats.close())
	}
	for _, l := range s.links {
		errs = append(errs, l.Close())
	}
	for _, p := range s.progs {
		errs = append(errs, p.Close())
	}
	for _, m := range s.maps {
		errs = append(errs, m.Close())
	}
	s.maps, s.progs, s.iters, s.links, s.stats = nil, nil, nil, nil, nil
	return errors.Join(errs...)
}
