package capture

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/google/pprof/profile"
)

// ParseAsyncJFR reads async-profiler's JFR recording of the CPU (event=cpu,
// the jfr output): its jdk.ExecutionSample events, each one sample worth
// periodNanos (> 0), with its thread and its stack. Unlike the collapsed
// output, every Java frame has its source line (the line of the bytecode
// it ran or called from), so a method's cost reads by line, and its file
// as the Java convention names it (see javaSourceFile). Threads and frames
// read as ParseAsyncCollapsed's do: the samples carry the thread's name as
// their comm label, its tid and pid, and LabelJVMLeaf when the JVM's
// interpreter ran them; a native frame's binary is its library.
func ParseAsyncJFR(data []byte, periodNanos, pid int64) (*profile.Profile, error) {
	if periodNanos <= 0 {
		return nil, fmt.Errorf("parsing async-profiler's recording: period %dns: must be more than 0", periodNanos)
	}
	b := newBuilder(periodNanos)
	samples := 0
	err := readJFR(data, map[string]bool{jfrExecutionSample: true}, func(c *jfrChunk) error {
		r := asyncJFR{c: c, stacks: map[int64]asyncStack{}}
		for _, e := range c.events {
			st, ok := r.stack(e.field("stackTrace"))
			if !ok {
				continue
			}
			l := labels{pid: pid}
			if th := c.object(e.field("sampledThread")); th != nil {
				l.comm = c.str(th.field("javaName"))
				if l.comm == "" {
					l.comm = c.str(th.field("osName"))
				}
				l.tid = c.integer(th.field("osThreadId"))
			}
			if st.interpreted {
				l.leaf = "interpreted"
			}
			b.add(st.frames, 1, periodNanos, l)
			samples++
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("parsing async-profiler's recording: %w", err)
	}
	if samples == 0 {
		return nil, errors.New("parsing async-profiler's recording: no CPU sample with a stack")
	}
	return b.profile(), nil
}

// jfrExecutionSample is the JFR event of a CPU sample.
const jfrExecutionSample = "jdk.ExecutionSample"

// asyncJFR reads the stacks of one chunk of a recording, each once.
type asyncJFR struct {
	c      *jfrChunk
	stacks map[int64]asyncStack
}

// asyncStack is a stack read: its frames, leaf first, and whether the
// JVM's interpreter ran its leaf.
type asyncStack struct {
	frames      []frame
	interpreted bool
}

// stack reads the stack trace v refers to; ok is false for none.
func (r *asyncJFR) stack(v any) (asyncStack, bool) {
	ref, isRef := v.(jfrRef)
	if isRef {
		if st, ok := r.stacks[ref.key]; ok {
			return st, len(st.frames) > 0
		}
	}
	var st asyncStack
	if t := r.c.object(v); t != nil {
		fs, _ := t.field("frames").([]any)
		kinds := make([]asyncKind, 0, len(fs))
		for _, f := range fs {
			fr, k := r.frame(r.c.object(f))
			st.frames, kinds = append(st.frames, fr), append(kinds, k)
		}
		st.interpreted = leafInterpreted(kinds)
	}
	if isRef {
		r.stacks[ref.key] = st
	}
	return st, len(st.frames) > 0
}

// asyncFrameCodes are async-profiler's frame types, by their JFR names,
// in the collapsed output's codes (see asyncKind).
var asyncFrameCodes = map[string]string{
	"Interpreted": "0", "JIT compiled": "j", "Inlined": "i", "C1 compiled": "1", "Kernel": "k",
}

// frame reads one frame of a stack: a Java method, named by its class
// (dotted, a hidden class's address left out) with its source file and
// line; a native function, named by its symbol with its library as its
// binary; or a kernel function.
func (r *asyncJFR) frame(f *jfrObject) (frame, asyncKind) {
	c := r.c
	m := c.object(f.field("method"))
	class := c.str(c.object(m.field("type")).field("name"))
	name := c.str(m.field("name"))
	k := asyncKind{code: asyncFrameCodes[c.str(f.field("type"))]}
	var out frame
	switch k.code {
	case "k":
		out = frame{name: name, dso: "[kernel.kallsyms]"}
	case "":
		k.lib = class
		out = frame{name: name, dso: class}
	default:
		class = normalClass(class)
		out = frame{name: strings.ReplaceAll(class, "/", ".") + "." + name, file: javaSourceFile(class)}
		if line := c.integer(f.field("lineNumber")); line > 0 {
			out.line = line
		}
	}
	if out.name == "" || strings.HasSuffix(out.name, ".") {
		out.name = "[unknown]"
	}
	return out, k
}

// normalClass is a class's name (slashed) without the address the JVM
// gives a hidden class ("Server$$Lambda$5/0x0000000800c0b000"), as the
// collapsed output's norm option writes it.
func normalClass(class string) string {
	if i := strings.LastIndexByte(class, '/'); i >= 0 && i+1 < len(class) && class[i+1] >= '0' && class[i+1] <= '9' {
		return class[:i]
	}
	return class
}

// javaSourceFile is the source file of a class (slashed) as Java names
// it: its package's path and its outermost class, "com/x/Server.java"
// for com/x/Server$Handler. The recording does not say the file; a class
// compiled from another language, or not in a file of its name, is named
// the same way.
func javaSourceFile(class string) string {
	dir, base := path.Split(class)
	if i := strings.IndexByte(base, '$'); i > 0 {
		base = base[:i]
	}
	if base == "" {
		return ""
	}
	return dir + base + ".java"
}
