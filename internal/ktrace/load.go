package ktrace

import (
	"fmt"
	"os"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/rlimit"
	"golang.org/x/sys/unix"
)

// start loads spec's maps, then each program on its own, so that a program
// the kernel refuses costs only its measures; it attaches every program
// loaded.
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
	maps, err := loadMaps(spec)
	if err != nil {
		return nil, unavailable("%s", reason(err, euid))
	}
	s := &Session{maps: maps, progs: map[string]*ebpf.Program{}}
	if err := s.fill(cfg); err != nil {
		_ = s.Close()
		return nil, err
	}
	un := unmeasured{}
	if !cfg.Stacks {
		un.add(Stacks, "not asked for")
	}
	if _, err := os.Stat("/proc/self/schedstat"); err != nil {
		un.add(Runnable, "the kernel keeps no run-queue times (built without CONFIG_SCHED_INFO): waits for a CPU count as off-CPU time")
	}
	// The kernel counts each program's run time while this is held, and
	// goes back to its setting (kernel.bpf_stats_enabled) at Close.
	if s.stats, err = ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME)); err != nil {
		un.add(ProgramCPU, "kernel run-time statistics: "+reason(err, euid))
	}
	cache := btf.NewCache()
	var failed []failure
	for _, p := range programs {
		prog, l, err := attach(spec, p.name, maps, cache)
		if err != nil {
			f := failure{fmt.Sprintf("%s (%s)", p.name, spec.Programs[p.name].SectionName), reason(err, euid)}
			for _, m := range p.measures {
				un.add(m, f.program+": "+f.why)
			}
			failed = append(failed, f)
			continue
		}
		s.progs[p.name], s.links = prog, append(s.links, l)
	}
	if len(s.links) == 0 {
		_ = s.Close()
		return nil, unavailable("%s", summary(failed))
	}
	s.unmeasured = un.reasons()
	return s, nil
}

// configure sets the programs' constants and sizes the stack table.
func configure(spec *ebpf.CollectionSpec, cfg Config) error {
	for name, v := range map[string]bool{"want_stacks": cfg.Stacks, "adopt": len(cfg.Ports) > 0} {
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
	return nil
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

// fill writes the processes and ports to measure into their maps.
func (s *Session) fill(cfg Config) error {
	for _, port := range cfg.Ports {
		if err := s.maps["ports"].Put(port, uint8(1)); err != nil {
			return fmt.Errorf("ktrace: listening port %d: %w", port, err)
		}
	}
	return s.AddPIDs(cfg.PIDs...)
}

// attach loads program name of spec with the shared maps and attaches it.
func attach(spec *ebpf.CollectionSpec, name string, maps map[string]*ebpf.Map, cache *btf.Cache) (*ebpf.Program, link.Link, error) {
	one := spec.Copy()
	one.Programs = map[string]*ebpf.ProgramSpec{name: one.Programs[name]}
	coll, err := ebpf.NewCollectionWithOptions(one, ebpf.CollectionOptions{MapReplacements: maps, Cache: cache})
	if err != nil {
		return nil, nil, err
	}
	prog := coll.DetachProgram(name)
	coll.Close()
	l, err := link.AttachTracing(link.TracingOptions{Program: prog})
	if err != nil {
		_ = prog.Close()
		return nil, nil, err
	}
	return prog, l, nil
}
