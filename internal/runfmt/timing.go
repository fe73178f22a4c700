package runfmt

// TimePerRequest is where a request's wall time goes, per request: the
// split a Go execution trace gives (running, runnable, network, sync,
// syscall, gc, sleep), or for other languages the on- and off-CPU stacks of
// a wall-clock sampler (py-spy --idle, perf's scheduler events).
type TimePerRequest struct {
	// Source is what the time was split from.
	Source TimeSource `json:"source"`
	// StartS and Seconds place the measured slice in the window (seconds
	// from its start); Requests is how many completed in it.
	StartS   float64 `json:"start_s"`
	Seconds  float64 `json:"seconds"`
	Requests int64   `json:"requests"`
	// Kinds are the split, in report order, each in ms per request; TotalMs
	// is their sum. Time in goroutines (threads) a request starts adds to
	// the request's, as CPU time does, so TotalMs can exceed the latency of
	// a handler that fans out.
	Kinds   []TimeRow `json:"kinds"`
	TotalMs float64   `json:"total_ms"`
	// IdleMs is time connections waited for their next request, per
	// request: not part of the split.
	IdleMs float64 `json:"idle_ms,omitempty"`
	// Profile is the run directory's file of the split by stack (pprof,
	// one sample type per kind).
	Profile string `json:"profile,omitempty"`
	// Scheduler is what a Go trace says about the runtime over the slice.
	Scheduler *GoScheduler `json:"scheduler,omitempty"`
}

// Sample types of a wall-time profile before the one per kind: all of the
// time, and all but running (the off-CPU flame graph).
const (
	WallSample   = "wall"
	OffCPUSample = "offcpu"
)

// WaitLabel is the sample label of a wall-time profile that names the
// precise wait of each sample (see Wait).
const WaitLabel = "wait"

// TimeRow is one kind of wall time per request and where it happens: a row
// of the split.
type TimeRow struct {
	Kind         TimeKind `json:"kind"`
	MsPerRequest float64  `json:"ms_per_request"`
	// Waits splits the kind by its precise wait (lock, channel, pool,
	// downstream, client...), in ms per request.
	Waits map[Wait]float64 `json:"waits,omitempty"`
	// Top is the user function with the most of this kind, charged with
	// the library code it called.
	Top *TimeSite `json:"top,omitempty"`
}

// TimeSite is a user function and the call it spends its time in.
type TimeSite struct {
	Function     string  `json:"function"`
	File         string  `json:"file,omitempty"`
	MsPerRequest float64 `json:"ms_per_request"`
	// Callee is the call under it that holds most of that time
	// (net/http.(*Client).Do, sync.(*Mutex).Lock, time.Sleep).
	Callee string `json:"callee,omitempty"`
	// BytesPerRequest is, for the garbage collector's row, the bytes it
	// allocates per request, by which the row's time is charged to it.
	BytesPerRequest float64 `json:"bytes_per_request,omitempty"`
}

// GoScheduler is the Go runtime's scheduling and GC over a trace.
type GoScheduler struct {
	GOMAXPROCS int `json:"gomaxprocs"`
	// PBusyPct is the share of the Ps' time they were running goroutines.
	PBusyPct float64 `json:"p_busy_pct"`
	// StopTheWorldMs is the time the world was stopped, GCStopMs the part
	// the garbage collector stopped it; GCCycles counts its mark phases.
	StopTheWorldMs float64 `json:"stop_the_world_ms"`
	GCStopMs       float64 `json:"gc_stop_ms"`
	GCCycles       int     `json:"gc_cycles"`
	// Goroutines: the most alive at once, created and ended in the slice;
	// ServingGoroutines served requests, StartedGoroutines were started by
	// those.
	GoroutinesMax     int `json:"goroutines_max"`
	GoroutinesCreated int `json:"goroutines_created"`
	GoroutinesEnded   int `json:"goroutines_ended"`
	ServingGoroutines int `json:"serving_goroutines"`
	StartedGoroutines int `json:"started_goroutines"`
	// CPUSamples counts the CPU profile samples of request goroutines that
	// placed the running time.
	CPUSamples int `json:"cpu_samples"`
}

// Kind returns the row of kind k, or nil.
func (t *TimePerRequest) Kind(k TimeKind) *TimeRow {
	for i := range t.Kinds {
		if t.Kinds[i].Kind == k {
			return &t.Kinds[i]
		}
	}
	return nil
}
