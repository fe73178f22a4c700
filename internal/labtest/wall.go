package labtest

import (
	"testing"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// WallBuilder builds a wall-time profile in runfmt's format by hand: the
// sample types runfmt.WallSample, runfmt.OffCPUSample and one per kind of
// wall time, each sample labelled with its wait (runfmt.WaitLabel).
type WallBuilder struct {
	b     *ProfileBuilder
	names []string
	waits []runfmt.Wait
}

// NewWall starts a wall-time profile.
func NewWall(t testing.TB) *WallBuilder {
	names := []string{runfmt.WallSample, runfmt.OffCPUSample}
	for _, k := range runfmt.TimeKinds.List() {
		names = append(names, string(k))
	}
	types := make([]string, len(names))
	for i, n := range names {
		types[i] = n + "/nanoseconds"
	}
	return &WallBuilder{b: NewProfile(t, types...), names: names}
}

// Add adds ns of wall time waiting in wait at stack (root first, "a;b;c").
func (w *WallBuilder) Add(stack string, wait runfmt.Wait, ns int64) *WallBuilder {
	v := make([]int64, len(w.names))
	v[0] = ns
	kind := string(wait.Kind())
	if kind != string(runfmt.TimeRunning) {
		v[1] = ns
	}
	for j, n := range w.names {
		if n == kind {
			v[j] = ns
		}
	}
	w.b.Add(stack, v...)
	w.waits = append(w.waits, wait)
	return w
}

// Profile is the profile built.
func (w *WallBuilder) Profile() *profile.Profile {
	p := w.b.Profile()
	p.DefaultSampleType = runfmt.WallSample
	for i, wait := range w.waits {
		p.Sample[i].Label = map[string][]string{runfmt.WaitLabel: {string(wait)}}
	}
	return p
}

// HandlerStack is a Go request's stack down to its handler, main.handler.
const HandlerStack = "runtime.goexit;net/http.(*conn).serve;net/http.serverHandler.ServeHTTP;main.handler"

// PlantedWall is the wall time of 100 requests, each 1 ms running in
// main.handler, 20 ms in a downstream call (plus 0.5 ms runnable after
// it) and 5 ms asleep.
func PlantedWall(t testing.TB) *profile.Profile {
	const n = 100
	down := HandlerStack + ";main.fetchPrice;net/http.(*Client).Get;runtime.selectgo"
	return NewWall(t).
		Add(HandlerStack, runfmt.WaitCPU, n*1e6).
		Add(down, runfmt.WaitDownstream, n*20e6).
		Add(down, runfmt.WaitRunnable, n*0.5e6).
		Add(HandlerStack+";main.throttle;time.Sleep", runfmt.WaitSleep, n*5e6).
		Profile()
}
