package report

import (
	"fmt"
	"io"
	"math"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// FormatBenchValue formats a benchmark's value in the unit go test printed
// it in: times per operation scaled ("3.41µs"), bytes in binary units,
// counts to three significant digits, other units after the number.
func FormatBenchValue(v float64, unit string) string {
	switch unit {
	case runfmt.BenchUnitTime:
		return units.FormatValue(v, "ns")
	case runfmt.BenchUnitBytes:
		return units.FormatBytes(v)
	case runfmt.BenchUnitAllocs:
		return units.Sig(v)
	}
	return units.Sig(v) + " " + unit
}

// FormatBenchSummary is a benchmark unit's median ± the half-width of its
// 95% confidence interval in percent.
func FormatBenchSummary(s runfmt.MetricSummary, unit string) string {
	return FormatBenchValue(s.Median, unit) + ciSuffix(s)
}

// WriteBenchText writes a `perflab bench` run: per package, a table of
// each benchmark's units (median ± 95% confidence interval over the timed
// runs), then for each benchmark the user's lines that burn CPU and
// allocate, from the profiles taken apart; then the run's status and where
// it is.
func WriteBenchText(w io.Writer, r *runfmt.Run, dir string) error {
	b := r.Bench
	p := &printer{w: w}
	if b == nil {
		p.f("Run %s measured no benchmarks.\n", r.ID)
		return p.err
	}
	for _, pkg := range b.Packages {
		p.benchTable(b, pkg)
	}
	for i := range b.Benchmarks {
		p.benchLines(&b.Benchmarks[i])
	}
	p.benchFooter(r, dir)
	return p.err
}

// benchTable is one package's table.
func (p *printer) benchTable(b *runfmt.Bench, pkg runfmt.BenchPackage) {
	var bs []runfmt.Benchmark
	var cols []string
	for _, x := range b.Benchmarks {
		if x.Package != pkg.ImportPath {
			continue
		}
		bs = append(bs, x)
		for _, m := range x.Metrics {
			if !slices.Contains(cols, m.Unit) {
				cols = append(cols, m.Unit)
			}
		}
	}
	p.f("%s (%s; %d runs of each, median ± 95%% confidence interval)\n", pkg.ImportPath, benchPlatform(pkg), b.Count)
	if len(bs) == 0 {
		p.f("  no results\n\n")
		return
	}
	tw := tabwriter.NewWriter(p.w, 0, 4, 2, ' ', 0)
	tp := &printer{w: tw}
	tp.row(append([]string{""}, cols...)...)
	for _, x := range bs {
		cells := []string{"  " + x.Name}
		for _, u := range cols {
			m, ok := x.Metric(u)
			cell := ""
			if ok {
				cell = FormatBenchSummary(m.Summary, u)
			}
			cells = append(cells, cell)
		}
		tp.row(cells...)
	}
	if tp.err == nil {
		tp.err = tw.Flush()
	}
	if p.err == nil {
		p.err = tp.err
	}
	p.f("\n")
}

func benchPlatform(pkg runfmt.BenchPackage) string {
	var parts []string
	if pkg.GOOS != "" {
		parts = append(parts, pkg.GOOS+"/"+pkg.GOARCH)
	}
	if pkg.CPU != "" {
		parts = append(parts, pkg.CPU)
	}
	if len(parts) == 0 {
		return "platform unknown"
	}
	return strings.Join(parts, ", ")
}

// benchLines writes where one benchmark's CPU and allocations go.
func (p *printer) benchLines(x *runfmt.Benchmark) {
	if x.CPU == nil && x.Allocs == nil && len(x.Notes) == 0 {
		return
	}
	p.f("%s: your lines, from profiles taken apart from the timed runs\n", x.Name)
	if c := x.CPU; c != nil {
		timed := ""
		if m, ok := x.Metric(runfmt.BenchUnitTime); ok {
			timed = " (timed: " + FormatBenchValue(m.Summary.Median, m.Unit) + ")"
		}
		p.f("  CPU %s/op in its profile%s: your lines %s, elsewhere %s (GC, runtime, testing)\n",
			units.FormatValue(c.PerOp, "ns"), timed, units.FormatValue(c.UserPerOp, "ns"), units.FormatValue(math.Max(0, c.PerOp-c.UserPerOp), "ns"))
		p.benchLineRows(c.Lines, func(l runfmt.BenchLine) string { return units.FormatValue(l.PerOp, "ns") })
	}
	if a := x.Allocs; a != nil {
		p.f("  Allocations %s and %s allocs/op in its profile, every one recorded: your lines %s, elsewhere %s\n",
			units.FormatBytes(a.PerOp), units.Sig(a.ObjectsPerOp), units.FormatBytes(a.UserPerOp), units.FormatBytes(math.Max(0, a.PerOp-a.UserPerOp)))
		if m, ok := x.Metric(runfmt.BenchUnitAllocs); ok && a.ObjectsPerOp < m.Summary.Median-0.05 {
			p.f("  (the profile counts %s of the %s allocs/op timed: allocations under 16 bytes without pointers share 16-byte blocks, which it records once per block)\n",
				units.Sig(a.ObjectsPerOp), units.Sig(m.Summary.Median))
		}
		p.benchLineRows(a.Lines, func(l runfmt.BenchLine) string {
			n := units.Sig(l.ObjectsPerOp)
			if n == "1" {
				return units.FormatBytes(l.PerOp) + "\t1 alloc"
			}
			return units.FormatBytes(l.PerOp) + "\t" + n + " allocs"
		})
	}
	for _, n := range x.Notes {
		p.f("  note: %s\n", n)
	}
}

func (p *printer) benchLineRows(lines []runfmt.BenchLine, cost func(runfmt.BenchLine) string) {
	tw := tabwriter.NewWriter(p.w, 0, 4, 2, ' ', tabwriter.AlignRight)
	tp := &printer{w: tw}
	for _, l := range lines {
		tp.f("    %s\t%s\t %s\n", cost(l), units.FormatPct(l.Pct), BenchLineLabel(l))
	}
	if tp.err == nil {
		tp.err = tw.Flush()
	}
	if p.err == nil {
		p.err = tp.err
	}
}

// BenchLineLabel is "pair.go:16 pair.AlgorithmOne: input := bytes.NewBuffer(data)".
func BenchLineLabel(l runfmt.BenchLine) string {
	s := fmt.Sprintf("%s:%d %s", filepath.Base(l.File), l.Line, path.Base(l.Function))
	if l.Text != "" {
		s += ": " + units.Shorten(l.Text, 80)
	}
	return s
}

func (p *printer) benchFooter(r *runfmt.Run, dir string) {
	b := r.Bench
	if b.ProfilesNote != "" {
		p.f("\nProfiles: %s\n", b.ProfilesNote)
	}
	status := r.Status
	if r.PartialReason != "" {
		status += ": " + r.PartialReason
	}
	for _, d := range r.Degradations {
		status += "; " + DegradationText(r, d)
	}
	p.f("\nRun %s (%s): %s\n", r.ID, status, dir)
	p.f("  timed runs %s, profile runs %s, builds %s\n", units.FormatSeconds(b.TimedS), units.FormatSeconds(b.ProfileS), units.FormatSeconds(b.BuildS))
	for _, w := range r.Warnings {
		p.f("  warning: %s\n", w)
	}
}
