package service

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Statfs magic numbers of the cgroup file systems.
const (
	cgroup1Magic = 0x27e0eb
	cgroup2Magic = 0x63677270
)

// AttachCgroup watches every process of an existing cgroup: a systemd
// unit's, a container's, a pod's, as services run on servers. path is the
// group's directory (/sys/fs/cgroup/system.slice/web.service, a v1
// controller's /sys/fs/cgroup/cpu,cpuacct/docker/ID) or its path inside the
// cgroup tree as /proc/PID/cgroup shows it (/system.slice/web.service),
// v1 or v2. The service's CPU, memory and throttling are read from the
// group, its processes are listed from cgroup.procs (workers forked or
// replaced later included), no budget is applied and Stop kills nothing.
// The main PID is the group's oldest process; Exited closes when the
// group has no process left.
func AttachCgroup(path string) (*Process, error) {
	g, pids, err := checkGroup(path)
	if err != nil {
		return nil, err
	}
	p := &Process{pid: oldest(pids), grp: g, exited: make(chan struct{}), unwatch: make(chan struct{})}
	go p.watchGroup()
	return p, nil
}

// CheckCgroup says whether path names a cgroup AttachCgroup can attach
// to: one that exists and holds processes.
func CheckCgroup(path string) error {
	_, _, err := checkGroup(path)
	return err
}

func checkGroup(path string) (*group, []int, error) {
	if path == "" {
		return nil, nil, errors.New("attaching to a cgroup: empty path")
	}
	l := detectLayout()
	g, err := openGroup(l, path)
	if err != nil {
		return nil, nil, fmt.Errorf("cgroup %s: %w", path, err)
	}
	if g.holdsPerflab(l) {
		return nil, nil, fmt.Errorf("cgroup %s: %w (its CPU time includes perflab's own and its load's); give the service's group", path, ErrPerflab)
	}
	var r fileReader
	pids, err := g.pids(&r, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("cgroup %s: reading its processes: %w", path, err)
	}
	if len(pids) == 0 {
		return nil, nil, fmt.Errorf("cgroup %s has no processes (is the service running?)", path)
	}
	return g, pids, nil
}

// openGroup finds the directory of a cgroup given as a directory or as a
// path inside the tree, and tells v1 from v2 by its file system.
func openGroup(l layout, path string) (*group, error) {
	var dirs []string
	if filepath.IsAbs(path) && strings.HasPrefix(path, "/sys/fs/cgroup") {
		dirs = append(dirs, path)
	} else {
		if l.v2 != nil {
			dirs = append(dirs, filepath.Join(l.v2.mount, path))
		}
		for _, c := range []string{"cpuacct", cpuController, "memory"} {
			if h, ok := l.v1[c]; ok {
				dirs = append(dirs, h.dir(filepath.Join(h.root, path)))
			}
		}
		dirs = append(dirs, filepath.Join("/sys/fs/cgroup/unified", path), filepath.Join("/sys/fs/cgroup", path))
	}
	for _, dir := range dirs {
		var st unix.Statfs_t
		if err := unix.Statfs(dir, &st); err != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "cgroup.procs")); err != nil {
			continue
		}
		switch st.Type {
		case cgroup2Magic:
			return &group{version: 2, dirs: []string{dir}, cpuDir: dir, memDir: dir, procsDir: dir}, nil
		case cgroup1Magic:
			return v1Group(l, dir)
		}
	}
	if _, err := os.Stat(dirs[0]); errors.Is(err, fs.ErrNotExist) {
		return nil, errors.New("no such cgroup")
	}
	return nil, errors.New("not a cgroup directory (want a directory with cgroup.procs under /sys/fs/cgroup)")
}

// v1Group finds a v1 group's directory in each controller perflab reads
// (the same path in the cpu, cpuacct and memory trees).
func v1Group(l layout, dir string) (*group, error) {
	var rel string
	for _, h := range l.v1 {
		if r, err := filepath.Rel(h.mount, dir); err == nil && !strings.HasPrefix(r, "..") {
			rel = r
			break
		}
	}
	g := &group{version: 1}
	for _, c := range v1Controllers {
		h, ok := l.v1[c]
		if !ok {
			continue
		}
		if d := filepath.Join(h.mount, rel); isDir(d) {
			g.setDir(c, d)
		}
	}
	if g.acctDir == "" {
		return nil, fmt.Errorf("%s has no cpuacct group: perflab reads the CPU time from cpuacct.usage", dir)
	}
	g.procsDir = dir
	g.dirs = []string{g.acctDir}
	return g, nil
}

func isDir(d string) bool {
	st, err := os.Stat(d)
	return err == nil && st.IsDir()
}

// oldest returns the pid that started first (the service's main process).
func oldest(pids []int) int {
	best, bestStart := pids[0], ^uint64(0)
	var r fileReader
	var path []byte
	for _, pid := range pids {
		path = statPath(path, pid)
		b, err := r.read(string(path))
		if err != nil {
			continue
		}
		if s, err := parseProcStat(b); err == nil && s.StartTime < bestStart {
			best, bestStart = pid, s.StartTime
		}
	}
	return best
}

// watchGroup closes Exited when the group has no process left.
func (p *Process) watchGroup() {
	var r fileReader
	var buf []int
	for {
		select {
		case <-p.unwatch:
			return
		case <-time.After(200 * time.Millisecond):
		}
		var err error
		buf, err = p.grp.pids(&r, buf[:0])
		if err == nil && len(buf) > 0 {
			continue
		}
		break
	}
	p.mu.Lock()
	p.exit = errors.New("the cgroup has no processes left (perflab did not start them: their exit status is unknown)")
	p.mu.Unlock()
	close(p.exited)
}
