package walltime

import (
	"bytes"
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

func perReq(a *Analysis, requests int) map[string]time.Duration {
	m := map[string]time.Duration{}
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
		wait    Wait
		least   float64 // of the measured wait
	}{
		{"/sleep", 2, WaitSleep, 0.5},
		{"/down", 2, WaitDownstream, 0.5},
		{"/lock", 4, WaitLock, 0.3},
	} {
		t.Run(tc.path[1:], func(t *testing.T) {
			const n = 40
			n0, d0 := s.waited[tc.path].snapshot()
			a := analyse(t, traceLoad(t, s.URL+tc.path, tc.clients, n))
			n1, d1 := s.waited[tc.path].snapshot()
			measured := (d1 - d0) / time.Duration(n1-n0)
			reqs := tc.clients * n
			got := perReq(a, reqs)
			t.Logf("%s: %d serving, %d started goroutines; per request %v; idle %v; %d CPU samples; the handlers measured %v", tc.path, a.ServingGoroutines, a.StartedGoroutines, got, a.Idle, a.CPUSamples, measured)
			if a.ServingGoroutines < tc.clients {
				t.Errorf("serving goroutines %d; want at least %d (one per connection)", a.ServingGoroutines, tc.clients)
			}
			if d := got[tc.wait.String()]; float64(d) < tc.least*float64(measured) || float64(d) > 1.1*float64(measured) {
				t.Errorf("%s per request %v; the handlers measured %v", tc.wait, d, measured)
			}
			for w, d := range got {
				if w != tc.wait.String() && w != WaitCPU.String() && d > got[tc.wait.String()] {
					t.Errorf("%s per request %v is more than the planted %s", w, d, tc.wait)
				}
			}
		})
	}
}

func TestKindNamesMatchRunfmt(t *testing.T) {
	for _, k := range Kinds() {
		if k.String() != runfmt.TimeKindNames[k] {
			t.Errorf("kind %d is %q; runfmt says %q", k, k, runfmt.TimeKindNames[k])
		}
	}
	if len(runfmt.TimeKindNames) != int(NumKinds)+1 || runfmt.TimeKindNames[NumKinds] != "other" {
		t.Errorf("runfmt has kinds %v; want walltime's %d and other", runfmt.TimeKindNames, NumKinds)
	}
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
