package ownership

import (
	"testing"

	"github.com/google/pprof/profile"
)

func TestIsGoMeasuring(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		// The handlers, the profile writer and the tracer.
		{"net/http/pprof.handler.ServeHTTP", true},
		{"net/http/pprof.Profile", true},
		{"net/http/pprof.Index", true},
		{"runtime/pprof.StartCPUProfile", true},
		{"runtime/pprof.profileWriter", true},
		{"runtime/pprof.(*profileBuilder).build", true},
		{"runtime/pprof.(*Profile).WriteTo", true},
		{"runtime/pprof.writeHeapProto", true},
		{"runtime/pprof.(*protobuf).string", true},
		{"runtime/trace.Start", true},
		{"runtime/trace.Start.func1", true},
		{"runtime/trace.(*traceMultiplexer).startLocked", true},
		{"runtime.traceLocker.GoCreate", true},
		{"runtime.(*traceMap).put", true},
		{"runtime.traceWriter.refill", true},
		{"runtime.traceAdvance", true},
		{"runtime.ReadTrace", true},
		{"runtime.readTrace0", true},
		{"runtime.StartTrace.func1", true},
		{"runtime.pprof_goroutineProfileWithLabels", true},
		{"runtime.goroutineProfileWithLabelsConcurrent", true},
		{"runtime.tryRecordGoroutineProfileWB", true},
		{"runtime.doRecordGoroutineProfile", true},
		// What a service calls for itself, and the runtime's work that
		// only looks like the tracer's.
		{"runtime/pprof.Do", false},
		{"runtime/pprof.Do.func1", false},
		{"runtime/pprof.ForLabels", false},
		{"runtime/pprof.WithLabels", false},
		{"runtime/pprof.SetGoroutineLabels", false},
		{"runtime/pprof.runtime_setProfLabel", false},
		{"runtime/pprof.(*Profile).Add", false},
		{"runtime/pprof.Lookup", false},
		{"runtime/trace.WithRegion", false},
		{"runtime/trace.StartRegion", false},
		{"runtime/trace.(*Region).End", false},
		{"runtime/trace.NewTask", false},
		{"runtime/trace.Logf", false},
		{"runtime/trace.userRegion", false},
		{"runtime.traceback", false},
		{"runtime.traceback2", false},
		{"runtime.tracebackPCs", false},
		{"runtime.traceEnabled", false},
		{"runtime.tracefpunwindoff", false},
		{"runtime.trace_userRegion", false},
		{"runtime.mProf_Malloc", false},
		{"runtime.mallocgc", false},
		{"compress/flate.NewWriter", false},
		{"compress/gzip.(*Writer).Write", false},
		{"net/http.(*conn).serve", false},
		{"main.tracer", false},
		{"github.com/acme/runtime/pprof.Start", false},
		{"", false},
	} {
		if got := IsGoMeasuring(tc.name); got != tc.want {
			t.Errorf("IsGoMeasuring(%q) = %v; want %v", tc.name, got, tc.want)
		}
	}
}

// TestMeasuringByStack: a stack is measuring by any frame of it, not by
// its leaf: flate's writer under the profile builder is measuring, the
// same writer under the user's middleware is not, nor is the user's work
// under pprof.Do's labels.
func TestMeasuringByStack(t *testing.T) {
	m, err := New(Spec{Runtime: LangGo, Modules: []Module{{Lang: LangGo, Path: "example.com/svc", User: true}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		stack []string // leaf first
		want  bool
	}{
		{[]string{"compress/flate.NewWriter", "compress/gzip.(*Writer).Write", "runtime/pprof.(*profileBuilder).build",
			"runtime/pprof.writeHeapProto", "runtime/pprof.(*Profile).WriteTo", "net/http/pprof.handler.ServeHTTP", "net/http.(*conn).serve"}, true},
		{[]string{"compress/flate.NewWriter", "compress/gzip.(*Writer).Write", "example.com/svc.gzipMiddleware.func1", "net/http.(*conn).serve"}, false},
		{[]string{"example.com/svc.work", "example.com/svc.handle.func1", "runtime/pprof.Do", "example.com/svc.handle"}, false},
		{[]string{"runtime.(*traceMap).put", "runtime.traceLocker.GoCreate", "runtime.newproc1", "example.com/svc.handle"}, true},
		{[]string{"runtime.gopark", "time.Sleep", "net/http/pprof.sleep", "net/http/pprof.Profile"}, true},
		{[]string{"runtime.memmove", "example.com/svc.handle"}, false},
	} {
		classes := make([]Class, len(tc.stack))
		idx := make([]int, len(tc.stack))
		for i, fn := range tc.stack {
			classes[i], idx[i] = m.Classify(Frame{Func: fn}), i
		}
		if got := MeasuringStack(idx, classes); got != tc.want {
			t.Errorf("MeasuringStack(%q) = %v; want %v", tc.stack, got, tc.want)
		}
		// The same stack as a profile's sample, its two outer frames
		// inlined into one location.
		var locs []*profile.Location
		for i, fn := range tc.stack {
			ln := profile.Line{Function: &profile.Function{ID: uint64(i + 1), Name: fn}}
			if n := len(locs); i == len(tc.stack)-1 && n > 0 {
				locs[n-1].Line = append(locs[n-1].Line, ln)
				continue
			}
			locs = append(locs, &profile.Location{ID: uint64(i + 1), Line: []profile.Line{ln}})
		}
		s := &profile.Sample{Location: locs, Value: []int64{1}}
		p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}}, Sample: []*profile.Sample{s}, Location: locs}
		if got := m.ClassifyProfile(p).Measuring(s); got != tc.want {
			t.Errorf("Classified.Measuring(%q) = %v; want %v", tc.stack, got, tc.want)
		}
	}
}
