package profiling

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"perflab/internal/runfmt"
)

// A JIT runtime names its compiled code for perf in a perf map,
// /tmp/perf-PID.map: a JVM writes it when asked (jvmPerfMaps), node when
// started with nodePerfFlags.

// jvmPerfMaps has every JVM among job's processes write its perf map with
// the JDK's own tool (`jcmd PID Compiler.perfmap`, JDK 17+), so perf
// names the compiled Java methods that ran in the window; it returns the
// map files it created (the process had none), for removal once read. A
// JVM jcmd cannot reach keeps its addresses, and the note says so.
func jvmPerfMaps(job Job) []string {
	note := job.Note
	if note == nil {
		note = func(string, string) {}
	}
	jcmd, err := exec.LookPath(jcmdCommand)
	var created []string
	for _, p := range job.Processes {
		if p.Runtime != runfmt.RuntimeJVM {
			continue
		}
		pid := strconv.Itoa(p.PID)
		path := "/tmp/perf-" + pid + ".map"
		if _, serr := os.Stat(path); serr == nil {
			continue // an agent's map: left alone
		}
		if err != nil {
			note("jvm perf map", "JVM process without a perf map (/tmp/perf-PID.map) and no jcmd (install a JDK, 17+): Java frames show as addresses")
			return created
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		out, rerr := exec.CommandContext(ctx, jcmd, pid, "Compiler.perfmap").CombinedOutput()
		cancel()
		if rerr != nil {
			note("jcmd "+pid, "jcmd "+pid+" Compiler.perfmap failed ("+lastLine(string(out))+"): Java frames show as addresses")
			continue
		}
		created = append(created, path)
	}
	return created
}

// jcmdCommand is the JDK's jcmd, which writes a JVM's perf map and loads
// async-profiler's agent into it.
const jcmdCommand = "jcmd"

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n ")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// nodePerfFlags make a node process write /tmp/perf-PID.map, so perf names
// its JavaScript functions, and give interpreted functions frames of their
// own. Only functions: node 20's --perf-basic-prof also turns on V8's
// logger, which writes an isolate-*-v8.log into the service's directory;
// the stubs and handlers it would add are not the user's code either way.
// Both flags are allowed in NODE_OPTIONS, so `node app.js`, `npm start`
// and a script with a node shebang all get them; other runtimes ignore the
// variable.
const nodePerfFlags = "--perf-basic-prof-only-functions --interpreted-frames-native-stack"

// WithPerfMap is a launched service's NODE_OPTIONS opts with the flags
// that make node write its perf map, unless it asks for one already.
func WithPerfMap(opts string) string {
	if strings.Contains(opts, "--perf-basic-prof") || strings.Contains(opts, "--perf-prof") {
		return opts
	}
	return strings.TrimSpace(opts + " " + nodePerfFlags)
}

// RemovePerfMaps deletes the perf map files the launched service's node
// processes wrote: node never removes them, and each holds every function
// it compiled.
func RemovePerfMaps(pids []int) {
	for _, pid := range pids {
		_ = os.Remove("/tmp/perf-" + strconv.Itoa(pid) + ".map")
	}
}
