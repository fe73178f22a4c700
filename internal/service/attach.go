package service

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// Attach watches a running service: pid and its descendants. No budget is
// applied and Stop never kills it. CPU and memory are read from its cgroup
// when it has one of its own (a container or systemd service: a group other
// than perflab's holding only pid and its descendants), else through /proc.
func Attach(pid int) (*Process, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("attaching to pid %d: want a pid > 0", pid)
	}
	st, err := readProcStat(pid)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("attaching to pid %d: no such process", pid)
	}
	if err != nil {
		return nil, fmt.Errorf("attaching to pid %d: %w", pid, err)
	}
	if st.State == 'Z' || st.State == 'X' {
		return nil, fmt.Errorf("attaching to pid %d: the process has exited", pid)
	}
	p := &Process{pid: pid, exited: make(chan struct{}), unwatch: make(chan struct{})}
	p.grp = ownGroup(detectLayout(), pid, p.walker.tree(pid, nil))
	go p.watch(st.StartTime)
	return p, nil
}

// ownGroup returns pid's cgroup when the group is the service's own: not
// the root, not perflab's, and holding only processes of the tree.
func ownGroup(l layout, pid int, tree []int) *group {
	v1, v2, err := procCgroups(pid)
	if err != nil {
		return nil
	}
	self1, self2, _ := procCgroups(os.Getpid())
	owns := func(h hierarchy, path, selfPath string) string {
		if path == "" || path == "/" || path == selfPath {
			return ""
		}
		dir := h.dir(path)
		var r fileReader
		b, err := r.read(filepath.Join(dir, "cgroup.procs"))
		if err != nil {
			return ""
		}
		pids, err := parsePIDs(nil, b)
		if err != nil || len(pids) == 0 {
			return ""
		}
		for _, q := range pids {
			if !slices.Contains(tree, q) {
				return ""
			}
		}
		return dir
	}
	if l.v2 != nil {
		if dir := owns(*l.v2, v2, self2); dir != "" {
			return &group{version: 2, dirs: []string{dir}, cpuDir: dir, memDir: dir, procsDir: dir}
		}
		return nil
	}
	g := &group{version: 1}
	for _, c := range v1Controllers {
		if h, ok := l.v1[c]; ok {
			g.setDir(c, owns(h, v1[c], self1[c]))
		}
	}
	if g.acctDir == "" {
		return nil
	}
	g.procsDir = g.acctDir
	g.dirs = []string{g.acctDir}
	return g
}

// watch closes Exited when the attached process ends: through a pidfd
// where the kernel has them (5.3+), else by polling its start time.
func (p *Process) watch(start uint64) {
	fd, err := unix.PidfdOpen(p.pid, 0)
	if err == nil {
		defer unix.Close(fd)
	}
	var r fileReader
	var path []byte
	for {
		if err == nil {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			if n, _ := unix.Poll(fds, 200); n > 0 {
				break
			}
		} else {
			time.Sleep(100 * time.Millisecond)
		}
		select {
		case <-p.unwatch:
			return
		default:
		}
		if !sameProcess(&r, &path, p.pid, start) {
			break
		}
	}
	p.mu.Lock()
	p.exit = fmt.Errorf("process %d exited (perflab did not start it: its exit status is unknown)", p.pid)
	p.mu.Unlock()
	close(p.exited)
}

// sameProcess says whether pid still runs and is the process started at
// start (not a reuse of its pid).
func sameProcess(r *fileReader, path *[]byte, pid int, start uint64) bool {
	*path = statPath(*path, pid)
	b, err := r.read(string(*path))
	if err != nil {
		return false
	}
	s, err := parseProcStat(b)
	return err == nil && s.StartTime == start && s.State != 'Z' && s.State != 'X'
}
