package runfmt

// GCEvent is one garbage collection of the measured window, as gctrace
// reported it: what report.html marks on its memory chart.
type GCEvent struct {
	// T is when the collection was seen, in seconds since the load began
	// (the time axis of the per-second series).
	T float64 `json:"t"`
	// HeapStartMiB and HeapEndMiB are the heap when the collection
	// started and ended; HeapLiveMiB is what it found live (the runtime
	// prints them as "MB").
	HeapStartMiB float64 `json:"heap_start_mib"`
	HeapEndMiB   float64 `json:"heap_end_mib"`
	HeapLiveMiB  float64 `json:"heap_live_mib"`
	// PauseMs is both stop-the-world pauses of the collection.
	PauseMs float64 `json:"pause_ms"`
	Forced  bool    `json:"forced,omitempty"`
}

// MaxGCEvents bounds the GC events run.json keeps: a window with more keeps
// this many, evenly spread over it.
const MaxGCEvents = 2000
