package service

import (
	"fmt"

	"github.com/prometheus/procfs"
)

// unifiedLayout returns the v2 tree mounted at dir, if it is one, to
// exercise the v2 code on a hybrid host's /sys/fs/cgroup/unified.
func unifiedLayout(dir string) (layout, error) {
	mounts, err := procfs.GetMounts()
	if err != nil {
		return layout{}, err
	}
	for _, m := range mounts {
		if m.FSType == "cgroup2" && m.MountPoint == dir {
			return layout{v2: &hierarchy{mount: m.MountPoint, root: m.Root}}, nil
		}
	}
	return layout{}, fmt.Errorf("no cgroup2 mount at %s", dir)
}

// CgroupDirs lists the cgroup directories holding the service (empty when
// measured through /proc).
func (p *Process) CgroupDirs() []string {
	if p.grp == nil {
		return nil
	}
	return append([]string(nil), p.grp.dirs...)
}

// CPUSetDir is the cgroup directory confining the service's CPUs ("" when
// --service-cpus was not asked for or is applied as affinity only).
func (p *Process) CPUSetDir() string {
	if p.grp == nil {
		return ""
	}
	return p.grp.cpusetDir
}
