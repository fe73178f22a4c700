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

func TestPlantedWaits(t *testing.T) {
	if testing.Short() {
		t.Skip("runs planted handlers for a second")
	}
	s := newPlantedServer(t)
	for _, tc := range []struct {
		path    string
		clients int
		wait    Wait
		lo, hi  time.Duration // per request
	}{
		{"/sleep", 2, WaitSleep, 4 * time.Millisecond, 7 * time.Millisecond},
		{"/down", 2, WaitDownstream, 4 * time.Millisecond, 8 * time.Millisecond},
		// Up to 3 others' 2 ms holds; some of it is spent spinning in
		// sync.Mutex or runnable once the lock is handed over.
		{"/lock", 4, WaitLock, 2 * time.Millisecond, 15 * time.Millisecond},
	} {
		t.Run(tc.path[1:], func(t *testing.T) {
			const n = 40
			a := analyse(t, traceLoad(t, s.URL+tc.path, tc.clients, n))
			reqs := tc.clients * n
			got := perReq(a, reqs)
			t.Logf("%s: %d serving, %d started goroutines; per request %v; idle %v; %d CPU samples", tc.path, a.ServingGoroutines, a.StartedGoroutines, got, a.Idle, a.CPUSamples)
			if a.ServingGoroutines < tc.clients {
				t.Errorf("serving goroutines %d; want at least %d (one per connection)", a.ServingGoroutines, tc.clients)
			}
			if d := got[tc.wait.String()]; d < tc.lo || d > tc.hi {
				t.Errorf("%s per request %v; want %v to %v", tc.wait, d, tc.lo, tc.hi)
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
