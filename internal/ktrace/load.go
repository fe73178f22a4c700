package ktrace

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/rlimit"

	"perflab/internal/files"
)

// start loads spec's maps, then each program on its own, so that a program
// the kernel refuses costs only its measures; it attaches every program
// loaded, then takes up the processes' sockets.
func start(spec *ebpf.CollectionSpec, cfg Config) (*Session, error) {
	euid := os.Geteuid()
	// Kernels before 5.11 charge maps to RLIMIT_MEMLOCK; newer ones to
	// the cgroup, and this does nothing.
	if err := rlimit.RemoveMemlock(); err != nil {
		return nil, unavailable("%s", reason(err, euid))
	}
	if err := configure(spec, cfg); err != nil {
		return nil, unavailable("%v", err)
	}
	loaded, err := loadMaps(spec)
	if err != nil {
		return nil, unavailable("%s", reason(err, euid))
	}
	s := &Session{maps: loaded, progs: map[string]*ebpf.Program{}, iters: map[string]*ebpf.Program{}}
	un := notAsked(cfg)
	if failed := s.load(spec, cfg, un, euid); len(s.links) == 0 {
		_ = s.Close()
		return nil, unavailable("%s", summary(failed))
	}
	// The kernel counts each program's run time while the sampler holds
	// its statistics on, and goes back to its setting
	// (kernel.bpf_stats_enabled) at Close.
	if s.stats, err = startStats(programRuns(slices.Collect(maps.Values(s.progs))), enableStats); err != nil {
		un.add(ProgramCPU, "kernel run-time statistics: "+reason(err, euid))
	}
	s.unmeasured = un.reasons()
	if err := s.fill(cfg); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// notAsked lists the measures cfg leaves out, and those this kernel
// cannot give.
func notAsked(cfg Config) unmeasured {
	un := unmeasured{}
	if !cfg.Stacks {
		un.add(Stacks, "not asked for")
	}
	if !cfg.AcceptBacklog {
		un.add(Backlog, "not asked for")
	}
	if cfg.SchedulerOnly {
		for _, p := range programs {
			if !p.scheduler() {
				for _, m := range p.measures {
					un.add(m, "not asked for")
				}
			}
		}
		un.add(OpenConnections, "not asked for")
	}
	if _, err := os.Stat("/proc/self/schedstat"); err != nil {
		un.add(Runnable, "the kernel keeps no run-queue times (built without CONFIG_SCHED_INFO): waits for a CPU count as off-CPU time")
	}
	return un
}

// load loads and attaches the programs, and loads the iterators; it
// returns the failures, also noted in un against the measures they cost.
func (s *Session) load(spec *ebpf.CollectionSpec, cfg Config, un unmeasured, euid int) []failure {
	cache := btf.NewCache()
	var failed []failure
	fail := func(p program, err error) {
		f := failure{fmt.Sprintf("%s (%s)", p.name, spec.Programs[p.name].SectionName), reason(err, euid)}
		for _, m := range p.measures {
			un.add(m, f.program+": "+f.why)
		}
		failed = append(failed, f)
	}
	for _, p := range programs {
		if p.backlog() || cfg.SchedulerOnly && !p.scheduler() {
			continue
		}
		prog, err := loadProgram(spec, p.name, s.maps, cache)
		if err != nil {
			fail(p, err)
			continue
		}
		s.progs[p.name] = prog
		l, err := link.AttachTracing(link.TracingOptions{Program: prog})
		if err != nil {
			fail(p, err)
			continue
		}
		s.links = append(s.links, l)
	}
	if cfg.AcceptBacklog && !cfg.SchedulerOnly {
		if p, err := s.attachBacklog(spec, cache); err != nil {
			fail(p, err)
		}
	}
	for _, p := range iterators {
		if cfg.SchedulerOnly {
			break
		}
		prog, err := loadProgram(spec, p.name, s.maps, cache)
		if err != nil {
			fail(p, err)
			continue
		}
		s.progs[p.name], s.iters[p.name] = prog, prog
	}
	return failed
}

// attachBacklog attaches the programs that see accept() return: at the
// accept calls' own tracepoints, or where one of those cannot be
// attached (a kernel without system call tracepoints, or one that refuses
// perf event links), at every system call's return. It returns the
// program that failed, and why, when neither way could be attached.
func (s *Session) attachBacklog(spec *ebpf.CollectionSpec, cache *btf.Cache) (program, error) {
	var progs []*ebpf.Program
	var links []link.Link
	undo := func() {
		for _, l := range links {
			_ = l.Close()
		}
		for _, p := range progs {
			_ = p.Close()
		}
	}
	attached := true
	for _, c := range acceptCalls {
		prog, err := loadProgram(spec, c.program, s.maps, cache)
		if err != nil {
			attached = false
			break
		}
		progs = append(progs, prog)
		l, err := attachSyscallExit(prog, c.call)
		if err != nil {
			attached = false
			break
		}
		links = append(links, l)
	}
	if attached {
		for i, c := range acceptCalls {
			s.progs[c.program] = progs[i]
		}
		s.links = append(s.links, links...)
		return program{}, nil
	}
	undo()
	p := program{acceptAnyCall, []Measure{Backlog}}
	prog, err := loadProgram(spec, p.name, s.maps, cache)
	if err != nil {
		return p, err
	}
	l, err := link.AttachTracing(link.TracingOptions{Program: prog})
	if err != nil {
		_ = prog.Close()
		return p, err
	}
	s.progs[p.name] = prog
	s.links = append(s.links, l)
	return program{}, nil
}

// configure sets the programs' constants, sizes the process bitmap to the
// kernel's largest pid and the stack table to what is asked.
func configure(spec *ebpf.CollectionSpec, cfg Config) error {
	for name, v := range map[string]bool{"want_stacks": cfg.Stacks, "want_backlog": cfg.AcceptBacklog} {
		vs, ok := spec.Variables[name]
		if !ok {
			return fmt.Errorf("kernel object without variable %s", name)
		}
		if err := vs.Set(v); err != nil {
			return err
		}
	}
	if !cfg.Stacks {
		spec.Maps["stacks"].MaxEntries = 1
	}
	pidMax, err := readPidMax()
	if err != nil {
		return err
	}
	spec.Maps["targets"].MaxEntries = pidMax/64 + 1
	return nil
}

// pidMaxPath holds the kernel's largest process id.
const pidMaxPath = "/proc/sys/kernel/pid_max"

// readPidMax reads the kernel's largest process id.
func readPidMax() (uint32, error) {
	b, err := files.ReadFile(pidMaxPath, 64)
	if err != nil {
		return 0, err
	}
	return parsePidMax(b)
}

// parsePidMax parses pid_max: a number from 1 to 4194304 (the kernel's
// limit), and a newline.
func parsePidMax(b []byte) (uint32, error) {
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 32)
	if err != nil || n == 0 || n > 1<<22 {
		return 0, fmt.Errorf("%s: %q: want a process id up to 4194304", pidMaxPath, b)
	}
	return uint32(n), nil
}

// loadMaps creates spec's maps, which every program then shares.
func loadMaps(spec *ebpf.CollectionSpec) (map[string]*ebpf.Map, error) {
	only := spec.Copy()
	only.Programs = nil
	coll, err := ebpf.NewCollection(only)
	if err != nil {
		return nil, err
	}
	maps := coll.Maps
	coll.Maps = nil
	coll.Close()
	return maps, nil
}

// fill writes the ports and processes to measure into their bitmaps.
func (s *Session) fill(cfg Config) error {
	for _, port := range cfg.Ports {
		if err := setBit(s.maps["ports"], uint32(port)); err != nil {
			return fmt.Errorf("ktrace: listening port %d: %w", port, err)
		}
	}
	return s.AddPIDs(cfg.PIDs...)
}

// loadProgram loads program name of spec with the shared maps.
func loadProgram(spec *ebpf.CollectionSpec, name string, maps map[string]*ebpf.Map, cache *btf.Cache) (*ebpf.Program, error) {
	one := spec.Copy()
	one.Programs = map[string]*ebpf.ProgramSpec{name: one.Programs[name]}
	coll, err := ebpf.NewCollectionWithOptions(one, ebpf.CollectionOptions{MapReplacements: maps, Cache: cache})
	if err != nil {
		return nil, err
	}
	defer coll.Close()
	return coll.DetachProgram(name), nil
}

// takeUp runs the iterators: the measured processes' listening ports and
// sockets, then their open connections, are noted (see ports_pass in
// bpf/ktrace.bpf.c); the sockets noted are forgotten after, so that a
// later socket at a freed one's address is not taken for it.
func (s *Session) takeUp() error {
	defer clearMap(s.maps["owned"])
	for _, p := range iterators {
		prog := s.iters[p.name]
		if prog == nil {
			continue
		}
		it, err := link.AttachIter(link.IterOptions{Program: prog})
		if err != nil {
			return fmt.Errorf("ktrace: %s: %w", p.name, err)
		}
		err = drain(it)
		if cerr := it.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("ktrace: %s: %w", p.name, err)
		}
	}
	return nil
}

// drain runs an iterator to its end; the programs write nothing, and at
// most 1 MiB is read.
func drain(it *link.Iter) error {
	r, err := it.Open()
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, files.LimitReader(r, 1<<20, "iterator output"))
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	return err
}

// clearMap deletes every key of a hash map of 64-bit keys.
func clearMap(m *ebpf.Map) {
	var k, next uint64
	var keys []uint64
	for err := m.NextKey(nil, &next); err == nil; err = m.NextKey(k, &next) {
		keys = append(keys, next)
		k = next
	}
	for _, k := range keys {
		_ = m.Delete(k)
	}
}
