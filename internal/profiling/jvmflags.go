package profiling

import (
	"bytes"
	"strconv"
	"strings"

	"perflab/internal/files"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// jvmFramePointerFlag makes HotSpot's JIT-compiled methods keep the frame
// pointer, so a profiler that walks frame pointers (perf) finds their
// callers: without it a compiled Java method's samples stop at that
// method, and the user's code that called it is never reached.
const jvmFramePointerFlag = "-XX:+PreserveFramePointer"

// JavaToolOptions is the variable every HotSpot JVM reads its extra flags
// from, whoever starts it (java, a wrapper script, a build tool).
const JavaToolOptions = "JAVA_TOOL_OPTIONS"

// WithJVMFramePointers is a launched service's JAVA_TOOL_OPTIONS opts with
// -XX:+PreserveFramePointer, unless opts says either way already.
func WithJVMFramePointers(opts string) string {
	if strings.Contains(opts, "PreserveFramePointer") {
		return opts
	}
	return strings.TrimSpace(opts + " " + jvmFramePointerFlag)
}

// maxEnvironBytes bounds the read of a process's command line or
// environment.
const maxEnvironBytes = 1 << 20

// jvmKeepsFramePointers says whether JVM pid was started with
// -XX:+PreserveFramePointer, on its command line or in JAVA_TOOL_OPTIONS
// or JDK_JAVA_OPTIONS; the last one given counts, as in the JVM.
func jvmKeepsFramePointers(pid int) bool {
	dir := "/proc/" + strconv.Itoa(pid)
	var flags []string
	if env, err := files.ReadFile(dir+"/environ", maxEnvironBytes); err == nil {
		for _, kv := range bytes.Split(env, []byte{0}) {
			k, v, _ := strings.Cut(string(kv), "=")
			if k == JavaToolOptions || k == "JDK_JAVA_OPTIONS" {
				flags = append(flags, strings.Fields(v)...)
			}
		}
	}
	if cmd, err := files.ReadFile(dir+"/cmdline", maxEnvironBytes); err == nil {
		flags = append(flags, strings.Split(string(cmd), "\x00")...)
	}
	on := false
	for _, f := range flags {
		switch f {
		case jvmFramePointerFlag:
			on = true
		case "-XX:-PreserveFramePointer":
			on = false
		}
	}
	return on
}

// noteJVM says, for a JVM process perf samples, whether its compiled
// methods keep their callers, and how to get them.
func noteJVM(info service.ProcessInfo) (key, msg string) {
	if info.Runtime != runfmt.RuntimeJVM {
		return "", ""
	}
	if jvmKeepsFramePointers(info.PID) {
		return "jvm frame pointers", "JVM started with " + jvmFramePointerFlag + " (perflab adds it to a launched service's " + JavaToolOptions +
			" unless --no-perf-map): compiled Java methods keep their callers"
	}
	return "jvm frame pointers", "JVM without " + jvmFramePointerFlag + ": perf's stacks through compiled Java methods stop there, their callers unseen; " +
		"start it with " + JavaToolOptions + "=" + jvmFramePointerFlag + " (perflab does so for a service it launches)"
}
