package lab

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"time"

	"perflab/internal/runfmt"
)

// jvmPerfMaps has every JVM among pids write its perf map with the JDK's
// own tool (`jcmd PID Compiler.perfmap`, JDK 17+), so perf names the
// compiled Java methods that ran in the window; it returns the map files
// it created (the process had none), for removal once read. A JVM jcmd
// cannot reach keeps its addresses, and the note says so.
func (t *treeSampler) jvmPerfMaps(pids []int) []string {
	jcmd, err := exec.LookPath("jcmd")
	var created []string
	for _, pid := range pids {
		t.mu.Lock()
		p := t.procs[pid]
		t.mu.Unlock()
		if p == nil || p.Runtime != runfmt.RuntimeJVM {
			continue
		}
		path := "/tmp/perf-" + strconv.Itoa(pid) + ".map"
		if _, serr := os.Stat(path); serr == nil {
			continue // an agent's map: left alone
		}
		if err != nil {
			t.note("jvm perf map", "JVM process without a perf map (/tmp/perf-PID.map) and no jcmd (install a JDK, 17+): Java frames show as addresses")
			return created
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		out, rerr := exec.CommandContext(ctx, jcmd, strconv.Itoa(pid), "Compiler.perfmap").CombinedOutput()
		cancel()
		if rerr != nil {
			t.note("jcmd "+strconv.Itoa(pid), "jcmd "+strconv.Itoa(pid)+" Compiler.perfmap failed ("+lastLine(string(out))+"): Java frames show as addresses")
			continue
		}
		created = append(created, path)
	}
	return created
}

func lastLine(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == ' ') {
		s = s[:len(s)-1]
	}
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			return s[i+1:]
		}
	}
	return s
}
