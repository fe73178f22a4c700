package service

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrPerflab says a pid is perflab itself or one of its ancestors: perflab
// runs among that process's descendants, so attaching to it would sample
// perflab (perf recording perf) and count the load generator's CPU as the
// service's.
var ErrPerflab = errors.New("perflab runs under it")

// maxAncestors bounds the walk up perflab's parents (a chain of shells is
// a few deep; a pid namespace ends it at 0).
const maxAncestors = 4096

// CheckNotPerflab refuses pid when it is perflab's own process or one of
// its ancestors (the shell that started it, a container's PID 1 when
// perflab runs inside the container's tree): its descendants include
// perflab, so nothing measured of it would be the service's alone.
func CheckNotPerflab(pid int) error {
	self := os.Getpid()
	if pid == self {
		return fmt.Errorf("pid %d is perflab itself: %w; give the service's pid", pid, ErrPerflab)
	}
	var r fileReader
	var path []byte
	for p, n := os.Getppid(), 0; p > 0 && n < maxAncestors; n++ {
		if p == pid {
			return fmt.Errorf("pid %d (%s) is an ancestor of perflab: %w, so its descendants include perflab's own processes and load; give the service's pid", pid, commName(pid), ErrPerflab)
		}
		path = statPath(path, p)
		b, err := r.read(string(path))
		if err != nil {
			return nil
		}
		st, err := parseProcStat(b)
		if err != nil {
			return nil
		}
		p = st.PPID
	}
	return nil
}

// commName is pid's command name, or "?" when it cannot be read.
func commName(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}

// holdsPerflab says whether perflab's own process is in g or in a group
// under it: g's CPU time would then include the load generator's.
func (g *group) holdsPerflab(l layout) bool {
	v1, v2, err := procCgroups(os.Getpid())
	if err != nil {
		return false
	}
	var self, dir string
	switch {
	case g.version == 2 && l.v2 != nil:
		self, dir = l.v2.dir(v2), g.cpuDir
	case g.version == 1:
		h, ok := l.v1["cpuacct"]
		if !ok {
			return false
		}
		self, dir = h.dir(v1["cpuacct"]), g.acctDir
	}
	return dir != "" && (self == dir || strings.HasPrefix(self, dir+"/"))
}
