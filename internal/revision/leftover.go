package revision

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// maxEnvironBytes bounds the read of a process's environment (the kernel
// bounds it near 2 MiB with the usual stack limit).
const maxEnvironBytes = 4 << 20

// killLeftovers kills the processes a dead perflab's builds left running
// in workspace dir: every process whose PERFLAB_OUT (inherited by all a
// build starts, daemons that left its process group included) or working
// directory lies in dir. It returns how many it killed.
func killLeftovers(dir string) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	marker := []byte("PERFLAB_OUT=" + dir + string(filepath.Separator))
	self := os.Getpid()
	n := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if !inWorkspace(pid, dir, marker) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}

// inWorkspace says whether pid was started by a build of workspace dir.
func inWorkspace(pid int, dir string, marker []byte) bool {
	proc := "/proc/" + strconv.Itoa(pid)
	if cwd, err := os.Readlink(proc + "/cwd"); err == nil && (cwd == dir || isUnder(cwd, dir)) {
		return true
	}
	f, err := os.Open(proc + "/environ")
	if err != nil {
		return false
	}
	defer f.Close()
	env, _ := io.ReadAll(io.LimitReader(f, maxEnvironBytes))
	for v := range bytes.SplitSeq(env, []byte{0}) {
		if bytes.HasPrefix(v, marker) {
			return true
		}
	}
	return false
}

// isUnder says whether path lies inside dir.
func isUnder(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
