package runfmt

import "slices"

// Finding is one rule-based observation, as data: what it is about
// (Kind), its quantities (Figures, each in its figure's unit), the
// settings it read (Settings), what it points at (Evidence) and the
// advice that applies (Advice). run.json holds no sentence of it: package
// findings words it from this data when it is shown, so the terminal, a
// pull-request comment and report.html print the same figures, each in
// its own format.
//
// Runs of schema 3 and older stored finished sentences instead (Schema3):
// Read moves their figures to Figures and keeps their words.
type Finding struct {
	Kind     FindingKind `json:"kind"`
	Figures  Figures     `json:"figures,omitempty"`
	Settings Settings    `json:"settings,omitempty"`
	Evidence Evidence    `json:"evidence,omitzero"`
	Advice   Advice      `json:"advice,omitempty"`
	// Lines are the culprit's costliest source lines.
	Lines []SourceLine `json:"lines,omitempty"`
	// Payoff is what fixing it would recover, predicted from the run by
	// package answer: FigCPUPerRequest and FigLatency saved per request,
	// and FigMaxRPS, the throughput the CPU would then allow.
	Payoff Figures `json:"payoff,omitempty"`
	// ConsequenceOf is the limit its time is a consequence of (a wait
	// that exists because the CPU is saturated): fixing the limit's
	// cause recovers it, and it ranks after the causes.
	ConsequenceOf LimitKind `json:"consequence_of,omitempty"`
	Schema3
}

// Schema3 is a finding as runs of schema 3 and older stored it: a title
// and a detail in finished English, the functions it named, and its cost.
// Read moves the cost and share to Figures; Title and Detail stay, and are
// what such a finding shows (written since schema 5 under title_text and
// detail_text, see oldkeys.go).
type Schema3 struct {
	Title     string   `json:"title_text,omitempty"`
	Detail    string   `json:"detail_text,omitempty"`
	Functions []string `json:"functions,omitempty"`
	// CostUsPerRequest, WaitUsPerRequest, CostBytesPerRequest and Share
	// are FigCPUPerRequest, FigWaitPerRequest, FigBytesPerRequest and
	// FigShare.
	CostUsPerRequest    float64 `json:"cost_us_per_request,omitempty"`
	WaitUsPerRequest    float64 `json:"wait_us_per_request,omitempty"`
	CostBytesPerRequest float64 `json:"cost_bytes_per_request,omitempty"`
	Share               float64 `json:"share,omitempty"`
}

// Evidence is what a finding points at.
type Evidence struct {
	// Functions are the code it names, the function to change first
	// (RoleCulprit) leading.
	Functions []FuncEvidence `json:"functions,omitempty"`
	// Peers are the service's outbound connections seen in the window
	// (for a downstream wait).
	Peers []string `json:"peers,omitempty"`
	// Processes are who held the CPUs (for CPU contention).
	Processes []ProcessCPU `json:"processes,omitempty"`
	// Time is a request's wall time by kind, and Phases the load's
	// client-side phases, as the finding quotes them.
	Time   []Part `json:"time,omitempty"`
	Phases []Part `json:"phases,omitempty"`
	// Groups are the groups of threads a stuck finding names (the
	// biggest first), from one snapshot of their stacks.
	Groups []StuckGroup `json:"groups,omitempty"`
	// Notes are what the run said in its own words and the finding
	// quotes: why a snapshot was taken, what could not be checked.
	Notes []string `json:"notes,omitempty"`
	// Noise says why the machine was noisy while it was measured, in the
	// words of a run before schema 5 (its key noise); a newer finding
	// carries the noise's figures (other_cores, steal_cores,
	// generator_runqueue_us).
	Noise []string `json:"noise_notes,omitempty"`
}

// FuncEvidence is a function a finding names, with its part in it.
type FuncEvidence struct {
	Role     Role   `json:"role"`
	Function string `json:"function"`
	// File is where it is, as the profile records it.
	File string `json:"file,omitempty"`
	// Line is the line its cost goes through, for a library function
	// named where its cost is (RoleLibraryFunc); 0 when not known.
	Line int64 `json:"line,omitempty"`
	// Callee is the call it spends its cost or its wait in (a library
	// entry point, the call a goroutine is parked in).
	Callee string `json:"callee,omitempty"`
	// Package is the dependency (module, crate, package, with its
	// version) that holds most of the cost under a user function, so
	// that it is said as "library X under your Y".
	Package string `json:"package,omitempty"`
	// Wait is what it waits for, for a function off a CPU.
	Wait Wait `json:"wait,omitempty"`
	// Figures are its own (its share, its cost per request).
	Figures Figures `json:"figures,omitempty"`
}

// Part is one part of a breakdown a finding quotes: a kind of wall time
// or a client-side phase, with its time per request.
type Part struct {
	Name string `json:"name"`
	// UsPerRequest is its time per request, in µs.
	UsPerRequest float64 `json:"us_per_request"`
}

// Culprit is the function to change first (RoleCulprit), or a schema 3
// finding's first function; false when it names none.
func (f *Finding) Culprit() (FuncEvidence, bool) {
	for _, e := range f.Evidence.Functions {
		if e.Role == RoleCulprit {
			return e, true
		}
	}
	if len(f.Functions) > 0 {
		return FuncEvidence{Role: RoleCulprit, Function: f.Functions[0]}, true
	}
	return FuncEvidence{}, false
}

// Names are the functions the finding names, the culprit first, each
// followed by the call it spends its cost in; a schema 3 finding's
// Functions. The steps of a path, the code holding a lock and a library
// callee beside the cost are left out: they explain, they are not the
// cost.
func (f *Finding) Names() []string {
	if len(f.Evidence.Functions) == 0 {
		return f.Functions
	}
	var out []string
	add := func(name string) {
		if name != "" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	for _, e := range f.Evidence.Functions {
		if e.Role == RolePath || e.Role == RoleHolder || e.Role == RoleLibrary {
			continue
		}
		add(e.Function)
		add(e.Callee)
	}
	return out
}

// Upgrade moves a schema 3 finding's cost and share to its figures, so
// every finding's cost is read from Figures.
func (f *Finding) Upgrade() {
	for fig, v := range map[Figure]float64{FigCPUPerRequest: f.CostUsPerRequest, FigWaitPerRequest: f.WaitUsPerRequest,
		FigBytesPerRequest: f.CostBytesPerRequest, FigShare: f.Share} {
		if v != 0 {
			f.Figures = f.Figures.With(fig, v)
		}
	}
	f.CostUsPerRequest, f.WaitUsPerRequest, f.CostBytesPerRequest, f.Share = 0, 0, 0, 0
}
