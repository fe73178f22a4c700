package ktrace

import (
	"errors"
	"fmt"
	"io"
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
	// Ports are the service's listening ports. Connections established on
	// them are followed from the handshake's end (accept backlog, and
	// requests sent before accept), and connections already open when the
	// session starts are taken up at their first send or read: inbound
	// when on one of Ports, outbound otherwise. Without Ports, a port is
	// learned at the first connection a measured process accepts on it,
	// and only connections accepted or opened during the session count.
	Ports []uint16
	// Stacks records the user stack of every off-CPU interval
	// (Wait.Stack). It costs a stack walk per switch-out of a measured
	// thread (a few µs with frame pointers) and up to 8 MiB of kernel
	// memory for the stack table.
	Stacks bool
}

// Limits of Config, the kernel maps' sizes.
const (
	maxTargets = 4096
	maxPorts   = 256
)

// Session is kernel programs attached for a set of processes; its totals
// grow until Close. A Session is safe for concurrent use.
type Session struct {
	mu         sync.Mutex
	maps       map[string]*ebpf.Map
	progs      map[string]*ebpf.Program
	links      []link.Link
	stats      io.Closer // holds the kernel's run-time statistics on
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
	if len(cfg.PIDs) > maxTargets {
		return fmt.Errorf("ktrace: %d processes, at most %d", len(cfg.PIDs), maxTargets)
	}
	for _, pid := range cfg.PIDs {
		if pid <= 0 {
			return fmt.Errorf("ktrace: process id %d: not a process", pid)
		}
	}
	if len(cfg.Ports) > maxPorts {
		return fmt.Errorf("ktrace: %d ports, at most %d", len(cfg.Ports), maxPorts)
	}
	for _, port := range cfg.Ports {
		if port == 0 {
			return errors.New("ktrace: port 0: not a listening port")
		}
	}
	return nil
}

// AddPIDs adds processes to measure (a worker started by other means than
// a fork of a measured process).
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
		if err := s.maps["targets"].Put(uint32(pid), uint8(1)); err != nil {
			return fmt.Errorf("ktrace: measuring process %d: %w", pid, err)
		}
	}
	return nil
}

// Stack returns the user stack recorded under id (Wait.Stack), innermost
// frame first, as instruction addresses in the process's address space.
func (s *Session) Stack(id int32) ([]uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.maps == nil {
		return nil, errors.New("ktrace: session closed")
	}
	var frames [127]uint64
	if err := s.maps["stacks"].Lookup(uint32(id), &frames); err != nil {
		return nil, fmt.Errorf("ktrace: stack %d: %w", id, err)
	}
	n := 0
	for n < len(frames) && frames[n] != 0 {
		n++
	}
	return frames[:n], nil
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
	for _, l := range s.links {
		errs = append(errs, l.Close())
	}
	for _, p := range s.progs {
		errs = append(errs, p.Close())
	}
	for _, m := range s.maps {
		errs = append(errs, m.Close())
	}
	if s.stats != nil {
		errs = append(errs, s.stats.Close())
	}
	s.maps, s.progs, s.links, s.stats = nil, nil, nil, nil
	return errors.Join(errs...)
}
