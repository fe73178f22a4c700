package report

import (
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"
	"time"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// WriteRunsTable writes the runs table from the records `perflab runs
// --json` prints: ID, name, start, requests/s, p99, CPU ms per request and
// status, one run a line in the order given.
func WriteRunsTable(w io.Writer, runs []runfmt.RunListing) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	p := &printer{w: tw}
	p.f("ID\tNAME\tSTARTED\tREQ/S\tP99\tCPU/REQ\tSTATUS\n")
	for _, l := range runs {
		if l.Error != "" {
			p.f("%s\t?\t?\t\t\t\tunreadable: %s\n", l.Dir, l.Error)
			continue
		}
		rps, p99, cpu := "-", "-", "-"
		if l.Requests > 0 || l.RPS > 0 {
			rps = fmt.Sprintf("%.0f", l.RPS)
			p99 = units.FormatMs(l.P99Ms)
		}
		if l.CPUMsPerRequest > 0 {
			cpu = units.FormatMs(l.CPUMsPerRequest)
		}
		status := l.Status
		if l.WallS > 0 {
			status += fmt.Sprintf(" (batch: %s wall, %s CPU)", seconds(l.WallS), seconds(l.CPUS))
		}
		if l.PartialReason != "" {
			status = units.Shorten(status+": "+l.PartialReason, 61)
		}
		p.f("%s\t%s\t%s\t%s\t%s\t%s\t%s\n", l.ID, l.Name, l.Started.Format("2006-01-02 15:04:05"), rps, p99, cpu, status)
	}
	if p.err != nil {
		return p.err
	}
	return tw.Flush()
}

// FindMaxTable writes `perflab run --find-max` as it goes: a header, then
// one line per rate tried (Step), then the result (Done).
type FindMaxTable struct {
	W   io.Writer
	SLO string
	// RateOnly ends Done at the highest sustainable rate: the measurement,
	// the warning and the run's directory are said by the page after it.
	RateOnly bool
}

// Header writes the search's first lines.
func (t FindMaxTable) Header(step string) error {
	p := &printer{w: t.W}
	p.f("Searching the highest rate within %s (steps of %s):\n", t.SLO, step)
	p.f("  %10s %10s %10s %8s %10s %12s %8s  %s\n", "rate", "achieved", "p99", "errors", "CPU cores", "CPU/req", "machine", "verdict")
	return p.err
}

// Step writes one rate tried.
func (t FindMaxTable) Step(st runfmt.FindMaxStep) error {
	verdict := "pass"
	if !st.Pass {
		verdict = "fail: " + st.Reason
	}
	errPct := 0.0
	if st.Requests > 0 {
		errPct = 100 * float64(st.Errors) / float64(st.Requests)
	}
	p := &printer{w: t.W}
	p.f("  %8s/s %8s/s %10s %8s %10s %12s %8s  %s\n", units.Sig(st.Rate), units.Sig(st.RPS), units.FormatMs(st.P99Ms), units.FormatPct(errPct), units.Sig(st.CPUCores), units.FormatMs(st.CPUMsPerRequest), st.Measurement, verdict)
	return p.err
}

// Done writes the highest sustainable rate found, how far the machine can
// be trusted for it, and where the run is.
func (t FindMaxTable) Done(r *runfmt.Run, dir string, cpuLimit float64) error {
	m := r.FindMax
	budget := "no CPU limit"
	if cpuLimit > 0 {
		budget = fmt.Sprintf("%g CPU", cpuLimit)
	}
	p := &printer{w: t.W}
	p.f("\nHighest sustainable rate: %s requests/s on %s within %s, at %s of CPU per request\n", units.Sig(m.MaxRPS), budget, t.SLO, units.FormatMs(m.CPUMsPerRequest))
	if t.RateOnly {
		return p.err
	}
	if q := r.Quality; q != nil {
		p.f("Measurement: %s\n", QualityLine(q))
		if q.Noisy() {
			p.f("  (a noisy machine moves find-max rates: this rate is not the service's capacity)\n")
		}
	}
	if m.BelowBudget != "" {
		p.f("Warning: %s\n", m.BelowBudget)
	}
	p.f("Run %s: %s\n", r.ID, dir)
	return p.err
}

// WriteFindMax writes a stored find-max run's search as it was printed
// while it ran: every step, then the highest sustainable rate, with the
// measurement, the warning and the run's directory unless rateOnly (a
// page that says those itself follows).
func WriteFindMax(w io.Writer, r *runfmt.Run, dir string, rateOnly bool) error {
	m := r.FindMax
	t := FindMaxTable{W: w, SLO: m.SLO, RateOnly: rateOnly}
	if err := t.Header(time.Duration(m.StepS * float64(time.Second)).String()); err != nil {
		return err
	}
	for _, st := range m.Steps {
		if err := t.Step(st); err != nil {
			return err
		}
	}
	if m.MaxRPS <= 0 {
		_, err := fmt.Fprintf(w, "\nNo step met %s.\n", m.SLO)
		return err
	}
	limit := 0.0
	if r.Target != nil {
		limit = r.Target.CPULimitCores
	}
	return t.Done(r, dir, limit)
}

// TopTable is a profile's top table as its caller computed it
// (analysis.Table): it is printed as it is.
type TopTable interface {
	WriteText(w io.Writer) error
}

// WriteProfileSummary writes what `perflab profile` captured: the CPU
// used, the top user-code functions of each CPU profile (tops, by the
// profile's file: the caller reads the profiles), the first findings, the
// status and the profiles' paths (in dir).
func WriteProfileSummary(w io.Writer, r *runfmt.Run, dir string, tops map[string]TopTable) error {
	if err := WriteHeadline(w, r); err != nil {
		return err
	}
	p := &printer{w: w}
	if t := r.Target; t != nil {
		p.f("CPU used: mean %s, max %s (measured from %s)\n", units.FormatCores(t.CPUCoresMean), units.Sig(t.CPUCoresMax), t.Source)
	}
	if pr := r.Profiling; pr != nil {
		for _, n := range profilingNotes(r) {
			p.f("Profiling: %s\n", n)
		}
		if nr := NotRepresentativeText(pr); nr != "" {
			p.f("NOT REPRESENTATIVE: %s\n", nr)
		}
		if line := ProcessLine(pr.Processes); line != "" {
			p.f("Processes: %s\n", line)
		}
	}
	for _, pr := range r.Profiles {
		if pr.Type != runfmt.ProfileCPU || r.Profiling != nil && NotRepresentativeText(r.Profiling) != "" {
			continue
		}
		if pr.Samples == 0 {
			p.f("\nThe CPU profile (%s) has no samples: the service was idle (load it while profiling).\n", pr.Source)
			continue
		}
		t := tops[pr.File]
		if t == nil {
			continue
		}
		p.f("\nTop user-code functions (%s, %d samples):\n", pr.Source, pr.Samples)
		if p.err == nil {
			p.err = t.WriteText(w)
		}
	}
	for i, fd := range r.Findings {
		if i == 0 {
			p.f("\nFindings:\n")
		}
		if i == 5 {
			break
		}
		p.f("  %d. [%s] %s\n", i+1, fd.Kind, FindingTitle(fd))
	}
	p.f("\nRun %s: %s", r.ID, r.Status)
	if r.PartialReason != "" {
		p.f(" (%s)", r.PartialReason)
	}
	p.f("\n")
	for _, pr := range r.Profiles {
		p.f("  %-10s %s\n", pr.Type, filepath.Join(dir, pr.File))
	}
	for _, warn := range r.Warnings {
		p.f("  warning: %s\n", warn)
	}
	return p.err
}
