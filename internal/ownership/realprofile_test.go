package ownership

import (
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// workCounts counts a profile's samples per runtime work.
func workCounts(c *Classified, p *profile.Profile) map[Work]int {
	out := map[Work]int{}
	for _, s := range p.Sample {
		out[c.Work(s)]++
	}
	return out
}

// hasFrame reports whether a frame of s has a function name containing
// sub.
func hasFrame(s *profile.Sample, sub string) bool {
	for _, f := range frames(s) {
		if strings.Contains(f.Func, sub) {
			return true
		}
	}
	return false
}

// TestJVMProfile: a JDK-only program compiling a Pattern per call, run
// with -XX:+PreserveFramePointer and a perf map, under perf.
func TestJVMProfile(t *testing.T) {
	p := perfProfile(t, "testdata/perf/jvm17.txt")
	m := mustNew(t, Spec{Runtime: LangJVM})
	c := m.ClassifyProfile(p)
	regexUnderHandle := 0
	for _, s := range p.Sample {
		comm := s.Label["comm"][0]
		w := c.Work(s)
		switch {
		case strings.Contains(comm, "CompilerThre") && w != JIT:
			t.Errorf("sample of %q: work %v, want jit", comm, w)
		case strings.HasPrefix(comm, "GC Thread") && w != GC:
			t.Errorf("sample of %q: work %v, want gc", comm, w)
		}
		// Without the thread's name, the frames tell.
		anon := *s
		anon.Label = nil
		if w := c.Work(&anon); hasFrame(s, "CompileBroker::") && w != JIT || hasFrame(s, "G1EvacuateRegionsTask") && w != GC {
			t.Errorf("sample %v without its thread: work %v", frames(s)[:3], w)
		}
		fs := frames(s)
		for i, f := range fs {
			cl := m.Classify(f)
			if cl.Kind == User && !strings.Contains(f.Func, "Server") {
				t.Errorf("%q classified as user code", f.Func)
			}
			if strings.Contains(f.Binary, "libjvm") && cl.Kind != Runtime {
				t.Errorf("libjvm frame %q classified %v", f.Func, cl.Kind)
			}
			_ = i
		}
		ch := c.Charge(s)
		if comm == "java" && hasFrame(s, "Server.handle") && c.Location(s.Location[0])[0].Package == "java.util.regex" {
			owner := fs[ch.Owner.Location].Func
			if !strings.Contains(owner, "Server") || ch.LibraryClass.Package != "java.util.regex" || ch.LibraryClass.Kind != Std {
				t.Errorf("regex sample charged to %q, library %+v", owner, ch.LibraryClass)
			}
			regexUnderHandle++
		}
	}
	if regexUnderHandle == 0 {
		t.Error("no sample of java.util.regex under Server.handle")
	}
	wc := workCounts(c, p)
	if wc[JIT] == 0 || wc[GC] == 0 || wc[Interpreter] == 0 {
		t.Errorf("runtime work %v: want JIT, GC and interpreter samples", wc)
	}
	d := c.Depth(p, 0)
	if !d.Verdict.Reach {
		t.Errorf("depth %+v: stacks of a JVM with -XX:+PreserveFramePointer reach user code", d)
	}
}

// TestNodeProfile: node --perf-basic-prof under perf; summarize calls a
// package of node_modules (inlined) and JSON.stringify.
func TestNodeProfile(t *testing.T) {
	p := perfProfile(t, "testdata/perf/node20.txt")
	m := mustNew(t, Spec{Runtime: LangNode, Root: "/tmp/own-exp/node"})
	c := m.ClassifyProfile(p)
	summarize := 0
	for _, s := range p.Sample {
		fs := frames(s)
		for _, f := range fs {
			if cl := m.Classify(f); f.Binary == "/usr/bin/node" && cl.Kind != Runtime {
				t.Errorf("node's own frame %q classified %v", f.Func, cl.Kind)
			}
		}
		ch := c.Charge(s)
		if ch.Owner.Location >= 0 && strings.Contains(fs[ch.Owner.Location].Func, "summarize") {
			summarize++
			if ch.Owner.Location > 0 && ch.LibraryClass.Kind != Runtime {
				t.Errorf("summarize's sample %v: library %+v, want V8", fs[:ch.Owner.Location], ch.LibraryClass)
			}
		}
		if hasFrame(s, "ScavengerCollector") && c.Work(s) != GC {
			t.Errorf("scavenger sample %v: work %v", fs[:2], c.Work(s))
		}
		if hasFrame(s, "v8::internal::compiler::") && c.Work(s) != JIT {
			t.Errorf("TurboFan sample %v: work %v", fs[:2], c.Work(s))
		}
	}
	if summarize == 0 {
		t.Error("no sample charged to summarize")
	}
	wc := workCounts(c, p)
	if wc[JIT] == 0 || wc[GC] == 0 || wc[Interpreter] == 0 {
		t.Errorf("runtime work %v: want JIT, GC and interpreter samples", wc)
	}
}

// TestPythonPerfProfile: perf alone on a Python service sees CPython's C
// code, never the Python functions: the stacks cannot reach user code,
// and the remedy is py-spy; the interpreter's share is named.
func TestPythonPerfProfile(t *testing.T) {
	p := perfProfile(t, "testdata/perf/python3.11.txt")
	m := mustNew(t, Spec{Runtime: LangPython, Root: "/tmp/own-exp/py"})
	c := m.ClassifyProfile(p)
	d := c.Depth(p, 0)
	if v := d.Verdict; v.Reach || v.Why != runfmt.ReachRuntimeOnly || v.Fix != runfmt.FixNaming || v.Lang != LangPython {
		t.Errorf("verdict %+v, want stacks that do not reach user code: perf sees the Python runtime, and Python's profiler names the code", d.Verdict)
	}
	wc := workCounts(c, p)
	if wc[Interpreter] < len(p.Sample)/4 {
		t.Errorf("runtime work %v: want the interpreter's share named", wc)
	}
	db := 0
	for _, s := range p.Sample {
		if hasFrame(s, "sqlite3VdbeExec") {
			db++
			if !c.Charge(s).Database {
				t.Errorf("sqlite sample %v not database work", frames(s)[:2])
			}
		}
	}
	if db == 0 {
		t.Error("no sqlite sample")
	}
}

// TestRustReleaseProfile: a Rust service built by cargo's default
// release profile (no frame pointers) under perf: one- and two-frame
// stacks, regex-automata's compiler at the leaf.
func TestRustReleaseProfile(t *testing.T) {
	p := perfProfile(t, "testdata/perf/rust-release.txt")
	m := mustNew(t, Spec{Runtime: LangRust})
	c := m.ClassifyProfile(p)
	for _, s := range p.Sample {
		for _, f := range frames(s) {
			if cl := m.Classify(f); cl.Kind == User && !strings.HasPrefix(f.Func, "rxsvc::") {
				t.Errorf("%q classified as user code", f.Func)
			}
		}
	}
	d := c.Depth(p, 1)
	if v := d.Verdict; v.Reach || v.Why != runfmt.ReachShallow || v.Fix != runfmt.FixUnwind || v.Lang != LangRust {
		t.Errorf("verdict %+v, want shallow stacks and Rust's rebuild", d.Verdict)
	}
	if d.Median > ShallowFrames {
		t.Errorf("median depth %d", d.Median)
	}
	var sum int64
	for _, v := range d.Frames {
		sum += v
	}
	if sum != d.Judged || d.Judged != d.Total {
		t.Errorf("depth buckets add up to %d, judged %d, total %d", sum, d.Judged, d.Total)
	}
}

// TestPySpyProfiles: py-spy's stacks (full file names as perflab records
// them, relative names, and --native): no standard-library, frozen,
// <string> or bootstrap frame is the user's, the json encoder's cost is
// charged to build_report, sqlite's C code is database work under query.
func TestPySpyProfiles(t *testing.T) {
	m := mustNew(t, Spec{Runtime: LangPython, Root: "/tmp/own-exp/py"})
	for _, file := range []string{"testdata/pyspy/full.txt", "testdata/pyspy/native.txt", "testdata/pyspy/relative.txt"} {
		p := collapsedProfile(t, file)
		c := m.ClassifyProfile(p)
		owners := map[string]bool{}
		for _, s := range p.Sample {
			fs := frames(s)
			for _, f := range fs {
				cl := m.Classify(f)
				notUser := strings.HasPrefix(f.File, "<") || strings.Contains(f.File, "/lib/python3") || strings.HasPrefix(f.File, "json/") ||
					strings.Contains(f.File, ".so") || strings.HasSuffix(f.File, ".c") || strings.HasPrefix(f.Func, "0x")
				if notUser && cl.Kind == User {
					t.Errorf("%s: %q (%s) classified as user code", file, f.Func, f.File)
				}
			}
			ch := c.Charge(s)
			if ch.Owner.Location < 0 {
				continue
			}
			owner := fs[ch.Owner.Location].Func
			owners[owner] = true
			if hasFrame(s, "JSONEncoder") && owner != "build_report" && owner != "build_report.<locals>.<listcomp>" && owner != "encode" && owner != "handler.<locals>.<dictcomp>" {
				t.Errorf("%s: json sample charged to %q", file, owner)
			}
			if hasFrame(s, "JSONEncoder") && (ch.LibraryClass.Package != "json" || ch.LibraryClass.Kind != Std) {
				t.Errorf("%s: json sample's library %+v", file, ch.LibraryClass)
			}
			if hasFrame(s, "sqlite3VdbeExec") && (owner != "query" && owner != "serve" || !ch.Database) {
				t.Errorf("%s: sqlite sample charged to %q, database %v", file, owner, ch.Database)
			}
		}
		if len(owners) == 0 {
			t.Errorf("%s: no sample charged to user code", file)
		}
		if d := c.Depth(p, 0); !d.Verdict.Reach {
			t.Errorf("%s: py-spy's stacks reach user code; verdict %+v", file, d.Verdict)
		}
	}
}

// TestRbspyProfile: rbspy's stacks of a script using rack (a gem),
// json, uri and forwardable (Ruby's library) and prime (a bundled gem).
func TestRbspyProfile(t *testing.T) {
	p := collapsedProfile(t, "testdata/rbspy.txt")
	m := mustNew(t, Spec{Runtime: LangRuby, Root: "/tmp/own-exp/rb"})
	c := m.ClassifyProfile(p)
	rack := 0
	for _, s := range p.Sample {
		fs := frames(s)
		for _, f := range fs {
			if cl := m.Classify(f); cl.Kind == User && !strings.HasPrefix(f.File, "/tmp/own-exp/rb/") {
				t.Errorf("%q (%s) classified as user code", f.Func, f.File)
			}
		}
		ch := c.Charge(s)
		if ch.Owner.Location < 0 {
			t.Errorf("sample %v: no user frame", fs)
			continue
		}
		if ch.LibraryClass.Package == "rack" {
			rack++
			if ch.LibraryClass.Version != "2.2.22" || fs[ch.Owner.Location].File != "/tmp/own-exp/rb/app.rb" {
				t.Errorf("rack sample: owner %v, library %+v", fs[ch.Owner.Location], ch.LibraryClass)
			}
		}
	}
	if rack == 0 {
		t.Error("no sample charged as rack under the user's code")
	}
}

// TestPerfNativeProfiles: perf's recordings of a Go program (SHA-256 in
// a loop) and a C++ one (a template's method calling memcmp), read with
// nothing known of them, as a profile file is offline: the Go runtime and
// standard library, the C library and the kernel are never the user's.
func TestPerfNativeProfiles(t *testing.T) {
	var zero Model
	for _, tc := range []struct {
		file string
		user []string // prefixes of the user's functions
	}{
		{"testdata/perf/go.txt", []string{"main."}},
		{"testdata/perf/cpp.txt", []string{"main", "perflab::"}},
	} {
		p := perfProfile(t, tc.file)
		c := zero.ClassifyProfile(p)
		users := 0
		for _, s := range p.Sample {
			for _, f := range frames(s) {
				isUser := false
				for _, u := range tc.user {
					isUser = isUser || strings.HasPrefix(f.Func, u)
				}
				if cl := zero.Classify(f); (cl.Kind == User) != isUser {
					t.Errorf("%s: %q (%s) classified %v", tc.file, f.Func, f.Binary, cl.Kind)
				}
			}
			if ch := c.Charge(s); ch.Owner.Location >= 0 {
				users++
			}
		}
		if users == 0 {
			t.Errorf("%s: no sample charged to user code", tc.file)
		}
		if d := c.Depth(p, 1); !d.Verdict.Reach {
			t.Errorf("%s: verdict %+v", tc.file, d.Verdict)
		}
	}
}
