package service

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// OOMError is how a launched service ended when the kernel's OOM killer
// killed it at its memory budget: its main process died of SIGKILL while
// the cgroup counted an OOM kill.
type OOMError struct {
	// LimitBytes is the cgroup's memory limit (--memory).
	LimitBytes int64
	// Likely says the kernel counts no OOM kills (cgroup v1 before Linux
	// 4.13): the group reached its limit (memory.failcnt) and SIGKILL
	// followed.
	Likely bool
}

// Error says it in the words of a run's status: "killed by the kernel's
// OOM killer at the 32 MiB memory budget (--memory)".
func (e *OOMError) Error() string {
	if e.Likely {
		return fmt.Sprintf("killed by signal 9 after reaching its %s memory budget (--memory): likely the kernel's OOM killer", memoryWords(e.LimitBytes))
	}
	return fmt.Sprintf("killed by the kernel's OOM killer at the %s memory budget (--memory)", memoryWords(e.LimitBytes))
}

// memoryWords is a budget as prose writes it: "32 MiB", "1.5 GiB".
func memoryWords(n int64) string {
	s := FormatMemory(n)
	i := strings.IndexFunc(s, func(r rune) bool { return r >= 'A' && r <= 'Z' })
	if i < 0 {
		return s
	}
	return s[:i] + " " + s[i:]
}

// oomKills is how many processes of the group the kernel's OOM killer
// killed: memory.events' oom_kill on v2, memory.oom_control's on v1. exact
// is false when the kernel does not count them (v1 before Linux 4.13):
// the count is then memory.failcnt, how often the group hit its limit.
func (g *group) oomKills(r *fileReader) (n int64, exact bool, err error) {
	if g == nil || g.memDir == "" {
		return 0, true, nil
	}
	file := "memory.oom_control"
	if g.version == 2 {
		file = "memory.events"
	}
	b, err := r.read(filepath.Join(g.memDir, file))
	if err != nil {
		return 0, false, err
	}
	if n, ok := keyedInt(b, "oom_kill"); ok {
		return n, true, nil
	}
	if g.version == 2 {
		return 0, false, fmt.Errorf("%s has no oom_kill line", file)
	}
	n, err = r.readInt(filepath.Join(g.memDir, "memory.failcnt"))
	return n, false, err
}

// keyedInt finds "key N" among the lines of a flat-keyed cgroup file.
func keyedInt(b []byte, key string) (int64, bool) {
	for line := range bytes.Lines(b) {
		k, v, ok := bytes.Cut(bytes.TrimSpace(line), []byte(" "))
		if ok && string(k) == key {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// oomError is the OOM kill of the main process, or nil: it died of
// SIGKILL, and the group has a memory limit and counts an OOM kill.
func (p *Process) oomError() error {
	limit := p.MemoryLimitBytes()
	if limit <= 0 {
		return nil
	}
	var r fileReader
	n, exact, err := p.grp.oomKills(&r)
	if err != nil || n == 0 {
		return nil
	}
	return &OOMError{LimitBytes: limit, Likely: !exact}
}
