package runfmt

// SourceLine is a line of source that carries a cost: a culprit line of a
// finding or of a hot function.
type SourceLine struct {
	// File and Line say where it is, as the profile records them.
	File string `json:"file"`
	Line int64  `json:"line"`
	// Text is the line's source when perflab found the file.
	Text string `json:"text,omitempty"`
	// CostUsPerRequest is the CPU spent on this line (and in what it
	// calls), per request.
	CostUsPerRequest float64 `json:"cost_us_per_request,omitempty"`
	// Pct is the line's share of its function's cost, in percent.
	Pct float64 `json:"pct"`
	// Context holds the source lines around it, the first being line
	// ContextStart, for reports.
	Context      []string `json:"context,omitempty"`
	ContextStart int64    `json:"context_start,omitempty"`
	// SourceChanged says the source read no longer has this line in the
	// function: the file changed since the build, Text may be another line.
	SourceChanged bool `json:"source_changed,omitempty"`
}

// Endpoints is the service's CPU per request handler and per load target,
// for a service whose profile shows its server's dispatch: net/http's
// (Go), or a Python web framework's (Flask, Django, FastAPI views). Each
// part is a share of the CPU measured; ExplainedPct, RequestPct and
// UnattributedPct add up to 100.
type Endpoints struct {
	// Dispatch is the request dispatch whose handler frames the CPU was
	// attributed by: DispatchNetHTTP (Go), or a Python web framework's
	// name (Flask, Django, FastAPI). Source is how CPU was attributed in
	// the words of a run before schema 5 (its key source).
	Dispatch string `json:"dispatch,omitempty"`
	Source   string `json:"source_note,omitempty"`
	// ExplainedPct is the share of profiled CPU under request handlers,
	// in percent.
	ExplainedPct float64 `json:"explained_pct"`
	// RequestPct is the share spent on requests outside any handler (the
	// server reading and writing them, the framework routing them): no
	// frame says which endpoint it was for, so it is charged to every
	// request alike; RequestUsPerRequest is it per request answered.
	RequestPct          float64 `json:"request_pct,omitempty"`
	RequestUsPerRequest float64 `json:"request_us_per_request,omitempty"`
	// UnattributedPct is the rest, under no request: background threads,
	// a pre-fork server's master, the start-up of workers before they
	// were sampled, the GC's background work, the runtime,
	// stacks the profiler read only in part that no handler runs.
	UnattributedPct float64       `json:"unattributed_pct"`
	Handlers        []EndpointCPU `json:"handlers,omitempty"`
	// Targets is the CPU per request of each load target some handler
	// served.
	Targets []TargetCPU `json:"targets,omitempty"`
	// WaitMarginPct is the part of every margin (in percent of its
	// figure) for the samples of threads waiting for a CPU, which a
	// profiler that reads stacks at every tick counts as working: the
	// profile stood for (100+WaitMarginPct)% of the CPU measured, and
	// those samples may fall on any endpoint, a long request's most.
	// Combined with the count's margin; 0 when the profiler counts no
	// waits or the service's threads did not wait.
	WaitMarginPct float64 `json:"wait_margin_pct,omitempty"`
	// Note says why CPU could not be attributed, or what is uncertain.
	Note string `json:"note,omitempty"`
}

// DispatchNetHTTP is the Endpoints.Dispatch of a Go service's net/http
// handlers.
const DispatchNetHTTP = "net/http"

// TargetCPU is one load target's CPU per request answered: its handlers'
// CPU per request of their targets, plus RequestUsPerRequest.
type TargetCPU struct {
	// Target is "METHOD URL", as in load.targets.
	Target string `json:"target"`
	// Requests is how many of its requests the service answered.
	Requests        int64   `json:"requests"`
	CPUUsPerRequest float64 `json:"cpu_us_per_request"`
	// HandlerUsPerRequest is the part of it in its handlers.
	HandlerUsPerRequest float64 `json:"handler_us_per_request"`
	// MarginUsPerRequest is the 95% margin of HandlerUsPerRequest from the
	// count of its handlers' samples and the waits counted as work
	// (EndpointCPU.MarginUsPerRequest, theirs combined); 0 when not
	// counted.
	MarginUsPerRequest float64 `json:"margin_us_per_request,omitempty"`
}

// EndpointCPU is the CPU of one request handler.
type EndpointCPU struct {
	Handler string `json:"handler"`
	File    string `json:"file,omitempty"`
	// Targets are the load's targets this handler served, as "METHOD URL",
	// when perflab could tell (one target, or the handler's name matching
	// the URL's path).
	Targets []string `json:"targets,omitempty"`
	// CPUPct is the handler's share of profiled CPU, in percent.
	CPUPct float64 `json:"cpu_pct"`
	// CPUUsPerRequest is its CPU per request its targets answered (per
	// request of the whole load when its targets are unknown).
	CPUUsPerRequest float64 `json:"cpu_us_per_request,omitempty"`
	// PerTargetRequest says CPUUsPerRequest is per request of Targets.
	PerTargetRequest bool `json:"per_target_request,omitempty"`
	// Samples is how many of the CPU profile's samples ran under the
	// handler, and MarginUsPerRequest the 95% margin of CPUUsPerRequest
	// from that count (a profile samples, and a handler with few samples
	// has a share that moves from run to run) and from the waits the
	// profiler counted as work (Endpoints.WaitMarginPct); 0: not counted.
	Samples            int64   `json:"samples,omitempty"`
	MarginUsPerRequest float64 `json:"margin_us_per_request,omitempty"`
	// Owner is the function that owns most of the handler's cost (see the
	// findings), and OwnerPct its share of profiled CPU in percent.
	Owner    string  `json:"owner,omitempty"`
	OwnerPct float64 `json:"owner_pct,omitempty"`
}

// TargetStats is one target's part of a load with several targets.
type TargetStats struct {
	// Target is "METHOD URL".
	Target     string           `json:"target"`
	Requests   int64            `json:"requests"`
	Errors     int64            `json:"errors"`
	Latency    Latency          `json:"latency_ms"`
	Status     map[string]int64 `json:"status_codes,omitempty"`
	ErrorKinds map[string]int64 `json:"error_kinds,omitempty"`
	// Histogram is the target's latency histogram in HDR's compressed
	// base64 form, so shards merge per target losslessly.
	Histogram string `json:"hdr_histogram,omitempty"`
}
