package ownership

import (
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// TestJVMWorkMeasured: a JVM's JIT, GC and interpreter work are always
// reported; perf with the JVM's perf map tells all three; without the map
// (its frames addresses) the interpreter cannot be told from compiled
// code, and without threads' names or the runtime's symbols neither can
// the compiler nor the collector, each saying why; a profile without
// samples says so.
func TestJVMWorkMeasured(t *testing.T) {
	if got := ReportedWork(LangJVM); len(got) != 3 || got[0] != JIT || got[1] != GC || got[2] != Interpreter {
		t.Errorf("ReportedWork(jvm) = %v, want jit, gc, interpreter", got)
	}
	if got := ReportedWork(LangGo); got != nil {
		t.Errorf("ReportedWork(go) = %v, want none (its work is reported by share)", got)
	}
	m := mustNew(t, Spec{Runtime: LangJVM})
	unmeasured := func(p *profile.Profile) map[Work]string {
		c := m.ClassifyProfile(p)
		out := map[Work]string{}
		for _, w := range ReportedWork(LangJVM) {
			out[w] = c.Unmeasured(p, w)
		}
		return out
	}
	p := perfProfile(t, "testdata/perf/jvm17.txt")
	for w, why := range unmeasured(p) {
		if why != "" {
			t.Errorf("perf with a perf map: %v not measured (%s)", w, why)
		}
	}

	// The same samples without the perf map's names.
	noMap := perfProfile(t, "testdata/perf/jvm17.txt")
	for _, loc := range noMap.Location {
		if loc.Mapping != nil && strings.Contains(loc.Mapping.File, "/tmp/perf-") { // "StubRoutines (1) (/tmp/perf-N.map)" reads as binary "1) (/tmp/perf-N.map"
			loc.Line = nil
		}
	}
	got := unmeasured(noMap)
	if !strings.Contains(got[Interpreter], "perf map") || got[JIT] != "" || got[GC] != "" {
		t.Errorf("perf without a perf map: %q; want the interpreter not measured, naming the perf map, and the JIT and GC measured by the threads' names", got)
	}

	// Nor the threads' names, nor libjvm's symbols.
	for _, s := range noMap.Sample {
		s.Label = nil
	}
	for _, loc := range noMap.Location {
		if loc.Mapping != nil && strings.Contains(loc.Mapping.File, "libjvm") {
			loc.Line = nil
		}
	}
	got = unmeasured(noMap)
	for _, w := range []Work{JIT, GC, Interpreter} {
		if got[w] == "" {
			t.Errorf("no names at all: %v measured; want why not", w)
		}
	}

	empty := &profile.Profile{}
	for w, why := range unmeasured(empty) {
		if !strings.Contains(why, "no samples") {
			t.Errorf("empty profile: %v %q, want no samples said", w, why)
		}
	}
}

// TestJVMVMThreadWork: the VM thread's collections at a safepoint are the
// collector's work, its other operations the runtime's.
func TestJVMVMThreadWork(t *testing.T) {
	m := mustNew(t, Spec{Runtime: LangJVM})
	const jvm = "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so"
	stack := func(op string) []Frame {
		return []Frame{
			{Func: "OopMapSet::all_do", Binary: jvm}, {Func: op, Binary: jvm},
			{Func: "VM_Operation::evaluate", Binary: jvm}, {Func: "VMThread::evaluate_operation", Binary: jvm},
		}
	}
	for op, want := range map[string]Work{
		"VM_G1CollectForAllocation::doit":     GC,
		"VM_GenCollectForAllocation::doit":    GC,
		"VM_ParallelGCFailedAllocation::doit": GC,
		"VM_Deoptimize::doit":                 OtherRuntime,
	} {
		if got := m.Work(stack(op), "VM Thread"); got != want {
			t.Errorf("VM Thread in %s: work %v, want %v", op, got, want)
		}
	}
}
