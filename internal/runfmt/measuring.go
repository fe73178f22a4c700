package runfmt

// Measuring is what perflab's own measuring cost the service in the
// window, counted apart from the service's work: the profile and trace
// requests it served for perflab (Go: net/http/pprof's handlers,
// runtime/pprof writing profiles, runtime/trace and the runtime's
// tracer). The run's tables (hot, allocs, the findings, the endpoints)
// and AllocBytesPerRequest leave it out; the ledger's CPU account gives
// it a row of its own (OwnerMeasuring). In run.json: profiling.measuring.
type Measuring struct {
	// CPUShare is its part of the CPU profile's samples, 0..1.
	CPUShare float64 `json:"cpu_share"`
	// AllocBytesPerRequest and AllocObjectsPerRequest are its part of the
	// window's allocation profile, per request.
	AllocBytesPerRequest   float64 `json:"alloc_bytes_per_request,omitempty"`
	AllocObjectsPerRequest float64 `json:"alloc_objects_per_request,omitempty"`
	// Goroutines are the goroutines of the profile at the window's end
	// that were its (the handler writing that profile).
	Goroutines int64 `json:"goroutines,omitempty"`
}
