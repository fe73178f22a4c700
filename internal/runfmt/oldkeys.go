package runfmt

import "encoding/json"

// Since schema 5 run.json holds words only under keys that end in note,
// notes or text: what perflab knows as a fact is typed (the quality's
// causes, the degradations, the stacks' reach, why a service was found
// stuck), and what it quotes (an error, a tool's answer) is a note.
// Earlier runs kept those words under other keys; they are read here,
// each into the field that now holds them, so an earlier run is shown in
// its own words. (mib.go does the same for the heap sizes once keyed
// *_mb.) A type with keys of earlier files reads them in its
// UnmarshalJSON; its other fields decode as they would without it.

// oldText copies an old key's words into field when the file has them
// and not the new key.
func oldText(field *string, old *string) {
	if old != nil && *field == "" {
		*field = *old
	}
}

// oldTexts is oldText for a list of words.
func oldTexts(field *[]string, old []string) {
	if old != nil && *field == nil {
		*field = old
	}
}

// UnmarshalJSON reads a Run, with degraded_reasons and warnings of
// earlier files (a degraded reason becomes a degradation that is its note
// alone).
func (r *Run) UnmarshalJSON(b []byte) error {
	type plain Run
	var v struct {
		plain
		DegradedReasons []string `json:"degraded_reasons"`
		Warnings        []string `json:"warnings"`
	}
	err := json.Unmarshal(b, &v)
	*r = Run(v.plain)
	oldTexts(&r.Warnings, v.Warnings)
	if r.Degradations == nil {
		for _, d := range v.DegradedReasons {
			r.Degradations = append(r.Degradations, Degradation{Note: d})
		}
	}
	return err
}

// UnmarshalJSON reads a Quality, with summary, reasons, valid and invalid
// of earlier files.
func (q *Quality) UnmarshalJSON(b []byte) error {
	type plain Quality
	var v struct {
		plain
		Summary *string  `json:"summary"`
		Reasons []string `json:"reasons"`
		Valid   []string `json:"valid"`
		Invalid []string `json:"invalid"`
	}
	err := json.Unmarshal(b, &v)
	*q = Quality(v.plain)
	oldText(&q.SummaryNote, v.Summary)
	oldTexts(&q.ReasonNotes, v.Reasons)
	oldTexts(&q.ValidNotes, v.Valid)
	oldTexts(&q.InvalidNotes, v.Invalid)
	return err
}

// UnmarshalJSON reads a TargetSummary, with verdict of earlier files.
func (t *TargetSummary) UnmarshalJSON(b []byte) error {
	type plain TargetSummary
	var v struct {
		plain
		Verdict *string `json:"verdict"`
	}
	err := json.Unmarshal(b, &v)
	*t = TargetSummary(v.plain)
	oldText(&t.Verdict, v.Verdict)
	return err
}

// UnmarshalJSON reads a Profiling, with not_representative,
// stacks_unreachable and stacks_remedy of earlier files.
func (p *Profiling) UnmarshalJSON(b []byte) error {
	type plain Profiling
	var v struct {
		plain
		NotRepresentative *string `json:"not_representative"`
		StacksUnreachable *string `json:"stacks_unreachable"`
		StacksRemedy      *string `json:"stacks_remedy"`
	}
	err := json.Unmarshal(b, &v)
	*p = Profiling(v.plain)
	oldText(&p.NotRepresentative, v.NotRepresentative)
	oldText(&p.StacksUnreachable, v.StacksUnreachable)
	oldText(&p.StacksRemedy, v.StacksRemedy)
	return err
}

// UnmarshalJSON reads a RuntimeWork, with not_measured and remedy of
// earlier files.
func (w *RuntimeWork) UnmarshalJSON(b []byte) error {
	type plain RuntimeWork
	var v struct {
		plain
		NotMeasured *string `json:"not_measured"`
		Remedy      *string `json:"remedy"`
	}
	err := json.Unmarshal(b, &v)
	*w = RuntimeWork(v.plain)
	oldText(&w.NotMeasured, v.NotMeasured)
	oldText(&w.Remedy, v.Remedy)
	return err
}

// UnmarshalJSON reads a Stacks, with reason, remedy and unwind_why of
// earlier files.
func (s *Stacks) UnmarshalJSON(b []byte) error {
	type plain Stacks
	var v struct {
		plain
		Reason    *string `json:"reason"`
		Remedy    *string `json:"remedy"`
		UnwindWhy *string `json:"unwind_why"`
	}
	err := json.Unmarshal(b, &v)
	*s = Stacks(v.plain)
	oldText(&s.Reason, v.Reason)
	oldText(&s.Remedy, v.Remedy)
	oldText(&s.UnwindWhy, v.UnwindWhy)
	return err
}

// UnmarshalJSON reads a Stuck, with reason of earlier files.
func (s *Stuck) UnmarshalJSON(b []byte) error {
	type plain Stuck
	var v struct {
		plain
		Reason *string `json:"reason"`
	}
	err := json.Unmarshal(b, &v)
	*s = Stuck(v.plain)
	oldText(&s.Reason, v.Reason)
	return err
}

// UnmarshalJSON reads a LedgerRow, with not_measured of earlier files.
func (r *LedgerRow) UnmarshalJSON(b []byte) error {
	type plain LedgerRow
	var v struct {
		plain
		NotMeasured *string `json:"not_measured"`
	}
	err := json.Unmarshal(b, &v)
	*r = LedgerRow(v.plain)
	oldText(&r.NotMeasured, v.NotMeasured)
	return err
}

// UnmarshalJSON reads a LedgerPeer, with cpu_not_measured of earlier
// files.
func (p *LedgerPeer) UnmarshalJSON(b []byte) error {
	type plain LedgerPeer
	var v struct {
		plain
		CPUNotMeasured *string `json:"cpu_not_measured"`
	}
	err := json.Unmarshal(b, &v)
	*p = LedgerPeer(v.plain)
	oldText(&p.CPUNotMeasured, v.CPUNotMeasured)
	return err
}

// UnmarshalJSON reads a CPUAccount, with not_profiled of earlier files.
func (a *CPUAccount) UnmarshalJSON(b []byte) error {
	type plain CPUAccount
	var v struct {
		plain
		NotProfiled *string `json:"not_profiled"`
	}
	err := json.Unmarshal(b, &v)
	*a = CPUAccount(v.plain)
	oldText(&a.NotProfiled, v.NotProfiled)
	return err
}

// UnmarshalJSON reads a KernelTiming, with unavailable and unmeasured of
// earlier files.
func (k *KernelTiming) UnmarshalJSON(b []byte) error {
	type plain KernelTiming
	var v struct {
		plain
		Unavailable *string           `json:"unavailable"`
		Unmeasured  map[string]string `json:"unmeasured"`
	}
	err := json.Unmarshal(b, &v)
	*k = KernelTiming(v.plain)
	oldText(&k.Unavailable, v.Unavailable)
	if k.Unmeasured == nil {
		k.Unmeasured = v.Unmeasured
	}
	return err
}

// UnmarshalJSON reads a FindMax, with below_budget of earlier files.
func (f *FindMax) UnmarshalJSON(b []byte) error {
	type plain FindMax
	var v struct {
		plain
		BelowBudget *string `json:"below_budget"`
	}
	err := json.Unmarshal(b, &v)
	*f = FindMax(v.plain)
	oldText(&f.BelowBudget, v.BelowBudget)
	return err
}

// UnmarshalJSON reads a FindMaxStep, with reason of earlier files.
func (s *FindMaxStep) UnmarshalJSON(b []byte) error {
	type plain FindMaxStep
	var v struct {
		plain
		Reason *string `json:"reason"`
	}
	err := json.Unmarshal(b, &v)
	*s = FindMaxStep(v.plain)
	oldText(&s.Reason, v.Reason)
	return err
}

// UnmarshalJSON reads an Endpoints, with source of earlier files.
func (e *Endpoints) UnmarshalJSON(b []byte) error {
	type plain Endpoints
	var v struct {
		plain
		Source *string `json:"source"`
	}
	err := json.Unmarshal(b, &v)
	*e = Endpoints(v.plain)
	oldText(&e.Source, v.Source)
	return err
}

// UnmarshalJSON reads an Evidence, with noise of earlier files.
func (e *Evidence) UnmarshalJSON(b []byte) error {
	type plain Evidence
	var v struct {
		plain
		Noise []string `json:"noise"`
	}
	err := json.Unmarshal(b, &v)
	*e = Evidence(v.plain)
	oldTexts(&e.Noise, v.Noise)
	return err
}

// UnmarshalJSON reads a BenchProfile, with method of earlier files.
func (p *BenchProfile) UnmarshalJSON(b []byte) error {
	type plain BenchProfile
	var v struct {
		plain
		Method *string `json:"method"`
	}
	err := json.Unmarshal(b, &v)
	*p = BenchProfile(v.plain)
	oldText(&p.Method, v.Method)
	return err
}

// UnmarshalJSON reads a Finding, with the title and detail of runs of
// schema 3 and older (Schema3).
func (f *Finding) UnmarshalJSON(b []byte) error {
	type plain Finding
	var v struct {
		plain
		Title  *string `json:"title"`
		Detail *string `json:"detail"`
	}
	err := json.Unmarshal(b, &v)
	*f = Finding(v.plain)
	oldText(&f.Title, v.Title)
	oldText(&f.Detail, v.Detail)
	return err
}
