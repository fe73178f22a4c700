package report

import (
	"fmt"
	"image/color"
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// htmlLedger is the report's "Where the time goes" section: the ledger's
// time account as a stacked bar of the mean latency and its table.
type htmlLedger struct {
	Heading string
	Bar     []htmlLedgerSegment
	Rows    []htmlLedgerRow
	// More are the parts measured at nothing, those not measured (with
	// why) and the ledger's notes; CPU is the CPU account in one line.
	More        []string
	CPU, Kernel string
}

type htmlLedgerSegment struct {
	Color, Title string
	Width        float64 // % of the latency
}

type htmlLedgerRow struct {
	Part, Color, Ms, Pct, Detail, Sources, Note string
}

// partPalette colours the parts as the runtime's split colours its kinds
// (kindPalette): CPU warm, waits cool, unexplained light grey.
var partPalette = map[runfmt.LedgerPart]runfmt.TimeKind{
	runfmt.PartCPU: runfmt.TimeRunning, runfmt.PartRunnable: runfmt.TimeRunnable, runfmt.PartThrottled: runfmt.TimeRunnable,
	runfmt.PartDownstream: runfmt.TimeNetwork, runfmt.PartNetwork: runfmt.TimeNetwork, runfmt.PartAccept: runfmt.TimeSync,
	runfmt.PartQueue: runfmt.TimeSync, runfmt.PartLock: runfmt.TimeSync, runfmt.PartPool: runfmt.TimeSync,
	runfmt.PartSyscall: runfmt.TimeSyscall, runfmt.PartDisk: runfmt.TimeSyscall, runfmt.PartGC: runfmt.TimeGC,
	runfmt.PartSleep: runfmt.TimeSleep, runfmt.PartGenerator: runfmt.TimeOther,
}

func partColor(p runfmt.LedgerPart) string {
	if k, ok := partPalette[p]; ok {
		return kindColor(k)
	}
	c := color.RGBA{0xe6, 0xe6, 0xe6, 0xff}
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}

// ledgerView is the section for r's ledger; nil without one.
func ledgerView(r *runfmt.Run) *htmlLedger {
	l := r.Ledger
	if l == nil || l.Time == nil {
		return nil
	}
	t := l.Time
	v := &htmlLedger{Heading: ledgerHeading(t)}
	lines, zero := ledgerLines(t)
	for _, x := range lines {
		c := partColor(x.Part)
		v.Rows = append(v.Rows, htmlLedgerRow{Part: string(x.Part), Color: c, Ms: units.FormatMs(x.Ms), Pct: units.FormatPct(x.Pct),
			Detail: x.Detail, Sources: x.Sources, Note: x.Note})
		v.Bar = append(v.Bar, htmlLedgerSegment{Color: c, Width: x.Pct, Title: fmt.Sprintf("%s %s", x.Part, units.FormatMs(x.Ms))})
	}
	if len(zero) > 0 {
		v.More = append(v.More, "Measured at 0: "+strings.Join(zero, ", ")+".")
	}
	for _, nm := range notMeasured(t) {
		v.More = append(v.More, "Not measured: "+nm+".")
	}
	v.More = append(v.More, l.Notes...)
	if a := l.CPU; a != nil && a.MeasuredMs > 0 {
		v.CPU = cpuAccountText(a)
	}
	if k := l.Kernel; k != nil && k.Unavailable == "" {
		v.Kernel = kernelText(k)
	}
	return v
}
