package cli

import (
	"github.com/spf13/pflag"

	"perflab/internal/lab"
)

// cpuListFlag is a --service-cpus or --load-cpus value: a CPU list such
// as "1" or "0-3,8", checked against the CPUs this host has.
type cpuListFlag struct {
	name string
	set  lab.CPUSet
}

var _ pflag.Value = (*cpuListFlag)(nil)

func (f *cpuListFlag) String() string { return f.set.String() }
func (f *cpuListFlag) Type() string   { return "cpus" }

func (f *cpuListFlag) Set(s string) error {
	c, err := lab.ParseCPUList(s)
	if err != nil {
		return err
	}
	if err := c.CheckUsable(); err != nil {
		return err
	}
	f.set = c
	return nil
}

// isolationFlags place the service and perflab on CPUs of their own.
type isolationFlags struct {
	service, load cpuListFlag
}

func (f *isolationFlags) register(fs *pflag.FlagSet) {
	f.service.name, f.load.name = "service-cpus", "load-cpus"
	fs.Var(&f.service, f.service.name, "run the launched service on these `CPUs` only (\"1\", \"2-3\"): a cgroup cpuset, else CPU affinity")
	fs.Var(&f.load, f.load.name, "run perflab itself (load generator, profilers) on these `CPUs` only: CPU affinity")
}

// check rejects lists that overlap or that cannot apply.
func (f *isolationFlags) check(pid int) error {
	if both := f.service.set.Intersect(f.load.set); len(both) > 0 {
		return usageErr("--load-cpus %s overlaps --service-cpus %s (CPU %s): give them different CPUs", f.load.set, f.service.set, both)
	}
	if pid != 0 && len(f.service.set) > 0 {
		return usageErr("--service-cpus applies to a service perflab launches (-- CMD), not to --pid")
	}
	return nil
}
