package walltime

import (
	"bytes"
	"os"
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
			if d := got[tc.wait.Name()]; float64(d) < tc.least*float64(measured) || float64(d) > 1.1*float64(measured) {
				t.Errorf("%s per request %v; the handlers measured %v", tc.wait, d, measured)
			}
			if loops := a.ClientLoops / time.Duration(reqs); tc.wait == WaitDownstream && (loops <= 0 || loops > got[tc.wait.Name()]) {
				t.Errorf("client connection loops %v per request; want some, less than the downstream wait %v", loops, got[tc.wait.Name()])
			}
			for w, d := range got {
				if w != tc.wait.Name() && w != WaitCPU.Name() && d > got[tc.wait.Name()] {
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

func TestKindsAndWaitsMatchRunfmt(t *testing.T) {
	kinds := map[Kind]runfmt.TimeKind{Running: runfmt.TimeRunning, Runnable: runfmt.TimeRunnable, Network: runfmt.TimeNetwork,
		Sync: runfmt.TimeSync, Syscall: runfmt.TimeSyscall, GC: runfmt.TimeGC, Sleep: runfmt.TimeSleep}
	if len(kinds) != int(NumKinds) {
		t.Fatalf("the test names %d kinds; walltime has %d", len(kinds), NumKinds)
	}
	for k, want := range kinds {
		if k.Name() != want {
			t.Errorf("kind %d is %q; want %q", k, k.Name(), want)
		}
	}
	waits := map[Wait]runfmt.Wait{WaitCPU: runfmt.WaitCPU, WaitRunnable: runfmt.WaitRunnable, WaitClient: runfmt.WaitClient,
		WaitDownstream: runfmt.WaitDownstream, WaitLock: runfmt.WaitLock, WaitChannel: runfmt.WaitChannel, WaitGroup: runfmt.WaitGroup,
		WaitCond: runfmt.WaitCond, WaitPool: runfmt.WaitPool, WaitSync: runfmt.WaitSync, WaitSyscall: runfmt.WaitSyscall,
		WaitGCAssist: runfmt.WaitGCAssist, WaitGCWait: runfmt.WaitGCWait, WaitGCStop: runfmt.WaitGCStop, WaitSleep: runfmt.WaitSleep}
	if len(waits) != int(numWaits) {
		t.Fatalf("the test names %d waits; walltime has %d", len(waits), numWaits)
	}
	for w, want := range waits {
		if w.Name() != want || w.Kind().Name() != want.Kind() {
			t.Errorf("wait %d is %q of kind %q; want %q of kind %q", w, w.Name(), w.Kind().Name(), want, want.Kind())
		}
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
