package capture

import "strings"

// DefaultAsyncProfilerHz is async-profiler's sampling rate when none is
// set: twice DefaultPerfHz. Each sample costs the sampled thread tens of
// microseconds (57 to 130 µs measured on a 2-core VM with event=cpu, its
// perf_events engine: 1.1 to 2.6% of the service's CPU at this rate,
// 6 to 13% at 999 Hz), in the service's own CPU; nothing is
// post-processed but the recording.
const DefaultAsyncProfilerHz = 199

// LabelJVMLeaf is the label that says an async-profiler sample's nearest
// Java frame to the leaf runs in the JVM's interpreter ("interpreted").
const LabelJVMLeaf = "jvm_leaf"

// asyncKind is what async-profiler says of a frame: its code ("0"
// interpreted, "j" compiled, "i" inlined, "1" C1-compiled, "k" kernel, ""
// native, as its collapsed output's annotations write them) and, for
// native code, its library ("" for the JVM's stubs and code blobs, which
// carry none).
type asyncKind struct {
	code, lib string
}

// leafInterpreted says whether a sample of frames (leaf first) is the
// JVM's interpreter at work: the Java frame nearest the leaf is
// interpreted, and only the JVM's own code lies between them (libjvm, its
// stubs and code blobs; the kernel's frames above them), so the
// interpreter runs the method or its runtime calls serve it. Another
// library's native code (libc, libnio) or a system call made straight
// from the method is not the interpreter's work.
func leafInterpreted(frames []asyncKind) bool {
	kernel, jvm := false, false
	for _, f := range frames {
		switch f.code {
		case "0":
			return !kernel || jvm
		case "j", "i", "1":
			return false
		case "k":
			kernel = true
			continue
		}
		if f.lib != "" && !strings.HasPrefix(f.lib, "libjvm") {
			return false
		}
		jvm = true
	}
	return false
}
