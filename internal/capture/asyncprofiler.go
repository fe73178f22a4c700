package capture

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// ParseAsyncCollapsed reads async-profiler's collapsed stacks, written
// with the options collapsed,threads,lib,ann,dot: one "root;...;leaf
// COUNT" line per stack, whose root is the thread, "[NAME tid=N]"; a
// native frame is prefixed with its library ("libjvm.so`Symbol"), a
// frame's type is suffixed (_[j] compiled, _[i] inlined, _[0]
// interpreted, _[1] C1-compiled, _[k] kernel). The samples, each worth
// periodNanos (> 0), carry the thread's name as their comm label (the
// JVM's compiler and GC threads are told apart by it), its tid, and pid;
// a sample whose nearest Java frame to the leaf is interpreted is
// labelled LabelJVMLeaf "interpreted" (see asyncLeafInterpreted), the
// JVM interpreter's work as perf's "Interpreter" frame is.
// The format has no file names or line numbers. Lines without a count are
// skipped.
func ParseAsyncCollapsed(r io.Reader, periodNanos, pid int64) (*profile.Profile, error) {
	if periodNanos <= 0 {
		return nil, fmt.Errorf("parsing async-profiler stacks: period %dns: must be more than 0", periodNanos)
	}
	b := newBuilder(periodNanos)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxPerfLine)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		sp := strings.LastIndexByte(line, ' ')
		if sp <= 0 {
			continue
		}
		count, err := strconv.ParseInt(line[sp+1:], 10, 64)
		if err != nil || count <= 0 {
			continue
		}
		if count > (1<<62)/periodNanos {
			return nil, fmt.Errorf("parsing async-profiler stacks: count %d is too large", count)
		}
		names := strings.Split(line[:sp], ";")
		l := labels{pid: pid}
		if m := asyncThread.FindStringSubmatch(names[0]); m != nil {
			l.comm = m[1]
			l.tid, _ = strconv.ParseInt(m[2], 10, 64)
			names = names[1:]
		}
		stack := make([]frame, 0, len(names))
		for i := len(names) - 1; i >= 0; i-- {
			stack = append(stack, asyncFrame(names[i]))
		}
		if asyncLeafInterpreted(names) {
			l.leaf = "interpreted"
		}
		b.add(stack, count, count*periodNanos, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading async-profiler stacks: %w", err)
	}
	return b.profile(), nil
}

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

// asyncLeafInterpreted says whether the sample of names (root first,
// annotated) is the JVM's interpreter at work (see leafInterpreted).
func asyncLeafInterpreted(names []string) bool {
	kinds := make([]asyncKind, len(names))
	for i, n := range names {
		k := &kinds[len(names)-1-i]
		if j := strings.LastIndex(n, "_["); j >= 0 && strings.HasSuffix(n, "]") && j+5 >= len(n) {
			k.code, n = n[j+2:len(n)-1], n[:j]
		}
		if lib, _, ok := strings.Cut(n, "`"); ok {
			k.lib = lib
		}
	}
	return leafInterpreted(kinds)
}

// asyncKind is what async-profiler says of a frame: its code ("0"
// interpreted, "j" compiled, "i" inlined, "1" C1-compiled, "k" kernel, ""
// native) and, for native code, its library ("" for the JVM's stubs and
// code blobs, which carry none).
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

// asyncThread is the root frame async-profiler's threads option adds.
var asyncThread = regexp.MustCompile(`^\[(.*) tid=([0-9]+)\]$`)

// asyncFrame reads one frame: its annotation goes (a kernel frame's
// names the kernel as its binary), its library prefix is its binary.
func asyncFrame(s string) frame {
	var f frame
	if i := strings.LastIndex(s, "_["); i >= 0 && strings.HasSuffix(s, "]") && i+5 >= len(s) {
		if s[i+2:len(s)-1] == "k" {
			f.dso = "[kernel.kallsyms]"
		}
		s = s[:i]
	}
	if lib, sym, ok := strings.Cut(s, "`"); ok && lib != "" && !strings.ContainsAny(lib, " (<") {
		f.dso, s = lib, sym
	}
	f.name = s
	if f.name == "" {
		f.name = "[unknown]"
	}
	return f
}
