package runfmt

// FindMax is the outcome of `perflab run --find-max`: the highest arrival rate
// the budget sustained within the SLO, and every step of the search.
type FindMax struct {
	SLO             string        `json:"slo"`
	StepS           float64       `json:"step_s"`
	MaxRPS          float64       `json:"max_rps"`
	CPUMsPerRequest float64       `json:"cpu_ms_per_request"`
	Steps           []FindMaxStep `json:"steps"`
	// BelowBudget, when set, says the highest rate left the service far
	// below its CPU budget (the bottleneck was elsewhere), with the figures.
	BelowBudget string `json:"below_budget_note,omitempty"`
}

// FindMaxStep is one rate tried.
type FindMaxStep struct {
	Rate            float64 `json:"rate"`
	RPS             float64 `json:"rps"`
	P99Ms           float64 `json:"p99_ms"`
	Requests        int64   `json:"requests"`
	Errors          int64   `json:"errors"`
	CPUCores        float64 `json:"cpu_cores"`
	CPUMsPerRequest float64 `json:"cpu_ms_per_request"`
	Pass            bool    `json:"pass"`
	// Reason says why the step failed (the key reason in runs before
	// schema 5).
	Reason string `json:"reason_note,omitempty"`
	// Measurement is the step's machine: "clean" or "noisy".
	Measurement string `json:"measurement,omitempty"`
}
