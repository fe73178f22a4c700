package walltime

import (
	"bytes"
	"maps"
	"os"
	"slices"
	"testing"
	"time"

	"perflab/internal/runfmt"
)

func analyse(t *testing.T, data []byte) *Analysis {
	t.Helper()
	a, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func perReq(a *Analysis, requests int) map[runfmt.Wait]time.Duration {
	m := map[runfmt.Wait]time.Duration{}
	for w, d := range a.ByWait {
		m[w] = d / time.Duration(requests)
	}
	return m
}

// TestPlantedWaits checks each planted wait lands in its class, with the
// time the handlers themselves measured: at most that (plus a little), and
// at least part of it (the rest is runnable after the wait, or spinning in
// sync.Mutex before parking, which are their own classes).
func TestPlantedWaits(t *testing.T) {
	if testing.Short() {
		t.Skip("runs planted handlers for a second")
	}
	s := newPlantedServer(t)
	for _, tc := range []struct {
		path    string
		clients int
		wait    runfmt.Wait
		least   float64 // of the measured wait
	}{
		{"/sleep", 2, runfmt.WaitSleep, 0.5},
		{"/down", 2, runfmt.WaitDownstream, 0.5},
		{"/lock", 4, runfmt.WaitLock, 0.3},
	} {
		t.Run(tc.path[1:], func(t *testing.T) {
			const n = 40
			n0, d0 := s.waited[tc.path].snapshot()
			data := traceLoad(t, s.URL+tc.path, tc.clients, n)
			defer keepOnFailure(t, data)
			a := analyse(t, data)
			n1, d1 := s.waited[tc.path].snapshot()
			measured := (d1 - d0) / time.Duration(n1-n0)
			reqs := tc.clients * n
			got := perReq(a, reqs)
			t.Logf("%s: %d serving, %d started goroutines; per request %v; idle %v; client loops %v; %d CPU samples; the handlers measured %v", tc.path, a.ServingGoroutines, a.StartedGoroutines, got, a.Idle, a.ClientLoops, a.CPUSamples, measured)
			if a.ServingGoroutines < tc.clients {
				t.Errorf("serving goroutines %d; want at least %d (one per connection)", a.ServingGoroutines, tc.clients)
			}
			if d := got[tc.wait]; float64(d) < tc.least*float64(measured) || float64(d) > 1.1*float64(measured) {
				t.Errorf("%s per request %v; the handlers measured %v", tc.wait, d, measured)
			}
			if loops := a.ClientLoops / time.Duration(reqs); tc.wait == runfmt.WaitDownstream && (loops <= 0 || loops > got[tc.wait]) {
				t.Errorf("client connection loops %v per request; want some, less than the downstream wait %v", loops, got[tc.wait])
			}
			for w, d := range got {
				if w != tc.wait && w != runfmt.WaitCPU && d > got[tc.wait] {
					t.Errorf("%s per request %v is more than the planted %s", w, d, tc.wait)
				}
			}
		})
	}
}

// keepOnFailure writes a failed test's trace where it outlives the test,
// and says where: a wait misclassified on a busy machine is read from it
// (go tool trace, or Read in a test).
func keepOnFailure(t *testing.T, data []byte) {
	if !t.Failed() {
		return
	}
	f, err := os.CreateTemp("", "perflab-walltime-*.trace")
	if err != nil {
		t.Logf("keeping the trace: %v", err)
		return
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		t.Logf("keeping the trace: %v", err)
		return
	}
	t.Logf("the trace is kept in %s", f.Name())
}

// TestProfileKindsAndWaits: the wall-time profile's sample types are
// wall, offcpu and runfmt's kinds but other; each sample is labelled with
// one of runfmt's waits, and its time is in its kind's column (and in
// offcpu unless it ran); the analysis's totals by kind and by wait are the
// profile's.
func TestProfileKindsAndWaits(t *testing.T) {
	a := analyse(t, sampleTrace(t))
	var types []string
	for _, st := range a.Profile.SampleType {
		types = append(types, st.Type)
	}
	want := []string{runfmt.WallSample, runfmt.OffCPUSample}
	for _, k := range []runfmt.TimeKind{runfmt.TimeRunning, runfmt.TimeRunnable, runfmt.TimeNetwork, runfmt.TimeSync, runfmt.TimeSyscall, runfmt.TimeGC, runfmt.TimeSleep} {
		want = append(want, string(k))
	}
	if !slices.Equal(types, want) {
		t.Fatalf("sample types %v; want %v", types, want)
	}
	if len(a.Profile.Sample) == 0 {
		t.Fatal("the sample trace gave no sample")
	}
	byKind, byWait := map[runfmt.TimeKind]time.Duration{}, map[runfmt.Wait]time.Duration{}
	for _, s := range a.Profile.Sample {
		w, err := runfmt.Waits.Parse(s.Label[LabelKey][0])
		if err != nil {
			t.Fatalf("sample labelled %v: %v", s.Label, err)
		}
		ns, col := s.Value[0], slices.Index(types, string(w.Kind()))
		offCPU := ns
		if w.Kind() == runfmt.TimeRunning {
			offCPU = 0
		}
		if col < 2 || s.Value[col] != ns || s.Value[1] != offCPU {
			t.Errorf("sample of wait %s: values %v; want %d in wall and %s", w, s.Value, ns, w.Kind())
		}
		byKind[w.Kind()] += time.Duration(ns)
		byWait[w] += time.Duration(ns)
	}
	if got := nonZero(a.Time); !maps.Equal(got, byKind) {
		t.Errorf("time by kind %v; the profile has %v", got, byKind)
	}
	if got := nonZero(a.ByWait); !maps.Equal(got, byWait) {
		t.Errorf("time by wait %v; the profile has %v", got, byWait)
	}
}

func nonZero[K comparable](m map[K]time.Duration) map[K]time.Duration {
	out := map[K]time.Duration{}
	for k, d := range m {
		if d != 0 {
			out[k] = d
		}
	}
	return out
}

// BenchmarkRead analyses the sample trace (testdata/sleep.trace); bench/
// compares a 10 s trace of the demo with `go tool trace`.
func BenchmarkRead(b *testing.B) {
	data := sampleTrace(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
