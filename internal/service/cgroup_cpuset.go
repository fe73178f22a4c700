package service

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// cpusetController confines a group to some CPUs (--service-cpus). It is
// created only when asked for: on v1 a cpuset group starts with no CPUs
// and no memory nodes, and must be given both before a process joins.
const cpusetController = "cpuset"

// affinityOnly is the end of the warning for a cpuset perflab cannot make.
func affinityOnly(cpus CPUSet) string {
	return fmt.Sprintf(": --service-cpus %s is applied as the service's CPU affinity only (the service could change it)", cpus)
}

// cpusetV1 creates the group's cpuset directory under parent (perflab's
// own cpuset group), copies the parent's memory nodes and sets the CPUs.
// Any failure is a warning: the service still gets the CPUs as its
// affinity at launch.
func (g *group) cpusetV1(parent, name string, cpus CPUSet) []string {
	if parent == "" {
		return []string{"the cgroup v1 cpuset controller is not mounted" + affinityOnly(cpus)}
	}
	prefix := "cpuset."
	if _, err := os.Stat(filepath.Join(parent, "cpuset.cpus")); err != nil {
		prefix = "" // mounted with -o noprefix
	}
	mems, err := os.ReadFile(filepath.Join(parent, prefix+"mems"))
	if err != nil || len(bytes.TrimSpace(mems)) == 0 {
		if mems, err = os.ReadFile(filepath.Join(parent, prefix+"effective_mems")); err != nil {
			return []string{fmt.Sprintf("reading the memory nodes of %s (%v)", parent, unwrapPathErr(err)) + affinityOnly(cpus)}
		}
	}
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return []string{fmt.Sprintf("creating the cpuset cgroup %s (%v)", dir, unwrapPathErr(err)) + affinityOnly(cpus)}
	}
	for _, f := range []struct{ file, value string }{{"mems", string(bytes.TrimSpace(mems))}, {"cpus", cpus.String()}} {
		if err := writeFile(filepath.Join(dir, prefix+f.file), f.value); err != nil {
			_ = os.Remove(dir)
			return []string{err.Error() + affinityOnly(cpus)}
		}
	}
	g.dirs = append(g.dirs, dir)
	g.cpusetDir = dir
	return nil
}

// cpusetV2 sets cpuset.cpus in the group's directory, when the parent
// could enable the cpuset controller for it.
func (g *group) cpusetV2(parent string, enabled bool, cpus CPUSet) []string {
	if !enabled {
		return []string{fmt.Sprintf("the cgroup v2 cpuset controller cannot be enabled in %s", parent) + affinityOnly(cpus)}
	}
	if err := writeFile(filepath.Join(g.dirs[0], "cpuset.cpus"), cpus.String()); err != nil {
		return []string{err.Error() + affinityOnly(cpus)}
	}
	g.cpusetDir = g.dirs[0]
	return nil
}
