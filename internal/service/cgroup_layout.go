package service

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/containerd/cgroups/v3"
	"github.com/prometheus/procfs"
)

// CgroupVersion reports the host's cgroup layout: "v2" (unified), "v1"
// (legacy), "hybrid" (v1 controllers plus an empty v2 tree at
// /sys/fs/cgroup/unified) or "none".
func CgroupVersion() string {
	switch cgroups.Mode() {
	case cgroups.Unified:
		return "v2"
	case cgroups.Hybrid:
		return "hybrid"
	case cgroups.Legacy:
		return "v1"
	}
	return "none"
}

// cpuController is the cgroup controller of the CPU quota and throttling
// (v1 and v2).
const cpuController = "cpu"

// v1Controllers are the v1 controllers perflab uses: cpu for the quota and
// throttling, cpuacct for CPU time, memory for the limit and usage.
var v1Controllers = []string{cpuController, "cpuacct", "memory"}

// hierarchy is one mounted cgroup tree.
type hierarchy struct {
	// mount is where the tree is mounted; root is the tree path mounted there
	// (not "/" inside a container that sees part of the host's tree).
	mount, root string
}

// dir maps a path from /proc/PID/cgroup to a directory under the mount.
func (h hierarchy) dir(cgPath string) string {
	rel, err := filepath.Rel(h.root, cgPath)
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = "."
	}
	return filepath.Join(h.mount, rel)
}

// layout is where the cgroup trees perflab uses are mounted.
type layout struct {
	// v2 is the unified tree when the host runs cgroup v2 only.
	v2 *hierarchy
	// v1 maps a controller (cpu, cpuacct, memory) to its tree on v1 and
	// hybrid hosts.
	v1 map[string]hierarchy
}

func (l layout) none() bool { return l.v2 == nil && len(l.v1) == 0 }

// detectLayout finds the cgroup mounts in /proc/self/mountinfo. On a hybrid
// host the v1 controllers are used: the unified tree there has none.
func detectLayout() layout {
	mounts, err := procfs.GetMounts()
	if err != nil {
		return layout{}
	}
	var l layout
	mode := cgroups.Mode()
	for _, m := range mounts {
		h := hierarchy{mount: m.MountPoint, root: m.Root}
		switch {
		case m.FSType == "cgroup2" && mode == cgroups.Unified && m.MountPoint == "/sys/fs/cgroup":
			l.v2 = &h
		case m.FSType == "cgroup" && mode != cgroups.Unified:
			for _, c := range append(v1Controllers, cpusetController) {
				if _, ok := m.SuperOptions[c]; ok {
					if l.v1 == nil {
						l.v1 = map[string]hierarchy{}
					}
					if _, seen := l.v1[c]; !seen {
						l.v1[c] = h
					}
				}
			}
		}
	}
	return l
}

// procCgroups reads /proc/PID/cgroup: v1 controller paths and the v2 path.
func procCgroups(pid int) (map[string]string, string, error) {
	return cgroups.ParseCgroupFileUnified(fmt.Sprintf("/proc/%d/cgroup", pid))
}

// selfDirs returns, per v1 controller, perflab's own group directory, so
// groups are nested under it and stay inside any limit perflab runs under.
func (l layout) selfDirs() map[string]string {
	v1, _, err := procCgroups(os.Getpid())
	out := map[string]string{}
	for c, h := range l.v1 {
		p := "/"
		if err == nil && v1[c] != "" {
			p = v1[c]
		}
		out[c] = h.dir(p)
	}
	return out
}
