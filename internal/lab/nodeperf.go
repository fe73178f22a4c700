package lab

import (
	"os"
	"strconv"
	"strings"
)

// nodePerfFlags make a node process write /tmp/perf-PID.map, so perf names
// its JavaScript functions, and give interpreted functions frames of their
// own. Only functions: node 20's --perf-basic-prof also turns on V8's
// logger, which writes an isolate-*-v8.log into the service's directory;
// the stubs and handlers it would add are not the user's code either way.
// Both flags are allowed in NODE_OPTIONS, so `node app.js`, `npm start`
// and a script with a node shebang all get them; other runtimes ignore the
// variable.
const nodePerfFlags = "--perf-basic-prof-only-functions --interpreted-frames-native-stack"

// withPerfMap adds nodePerfFlags to the service's NODE_OPTIONS unless it
// asks for a perf map already.
func withPerfMap(opts string) string {
	if strings.Contains(opts, "--perf-basic-prof") || strings.Contains(opts, "--perf-prof") {
		return opts
	}
	return strings.TrimSpace(opts + " " + nodePerfFlags)
}

// removePerfMaps deletes the perf map files the launched service's node
// processes wrote: node never removes them, and each holds every function
// it compiled.
func removePerfMaps(pids []int) {
	for _, pid := range pids {
		_ = os.Remove("/tmp/perf-" + strconv.Itoa(pid) + ".map")
	}
}

// seenPIDs lists every process of the service perflab saw: at the start
// and while profiling.
func (s *session) seenPIDs() []int {
	pids := append([]int(nil), s.pids...)
	if s.prof != nil && s.prof.tree != nil {
		for _, p := range s.prof.tree.processes() {
			pids = append(pids, p.PID)
		}
	}
	return pids
}
