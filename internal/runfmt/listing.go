package runfmt

import "time"

// RunListing is one stored run as `perflab runs --json` lists it: what it
// measured in a few figures, and where it is.
type RunListing struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Dir     string    `json:"dir"`
	Started time.Time `json:"started"`
	Status  string    `json:"status"`
	// PartialReason says why a partial run stopped, PartialKind the same
	// as data where perflab knows it.
	PartialReason   string      `json:"partial_reason,omitempty"`
	PartialKind     PartialKind `json:"partial_kind,omitempty"`
	Requests        int64       `json:"requests"`
	RPS             float64     `json:"rps"`
	P99Ms           float64     `json:"p99_ms"`
	CPUMsPerRequest float64     `json:"cpu_ms_per_request,omitempty"`
	// Measurement is the quality verdict: clean or noisy.
	Measurement string `json:"measurement,omitempty"`
	// WallS and CPUS are a batch program's wall time and CPU (seconds).
	WallS    float64   `json:"wall_s,omitempty"`
	CPUS     float64   `json:"cpu_s,omitempty"`
	Revision *Revision `json:"revision,omitempty"`
	// Error says why run.json could not be read (the other fields are then
	// empty but Dir and ID).
	Error string `json:"error,omitempty"`
}

// Listing summarises the run stored in dir (id is its directory's name).
func Listing(id, dir string, r *Run, readErr error) RunListing {
	l := RunListing{ID: id, Dir: dir}
	if readErr != nil || r == nil {
		l.Error = "no run.json"
		if readErr != nil {
			l.Error = readErr.Error()
		}
		return l
	}
	l.Name, l.Started, l.Status, l.PartialReason, l.PartialKind, l.Revision = r.Name, r.Started, r.Status, r.PartialReason, r.PartialKind, r.Revision
	if r.Load != nil {
		l.Requests, l.RPS, l.P99Ms = r.Load.Requests, r.Load.RPS, r.Load.Latency.P99
	}
	if r.Target != nil {
		l.CPUMsPerRequest = r.Target.CPUMsPerRequest
	}
	if r.Quality != nil {
		l.Measurement = r.Quality.Verdict
	}
	if b := r.Batch; b != nil {
		l.WallS, l.CPUS = b.WallS, b.CPUS
	}
	return l
}
