package analysis

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"perflab/internal/funcname"
	"perflab/internal/units"
)

// WriteText writes the table in pprof's -top layout:
//
//	Type: cpu
//	Showing nodes accounting for 1.20s, 95.24% of 1.26s total
//	      flat  flat%   sum%        cum   cum%   flat/req    cum/req  name
//	     500ms 39.68% 39.68%      800ms 63.49%     2.50ms        4ms  main.handler
//
// The per-request columns appear when Requests > 0. Values are scaled to
// readable units (µs, ms, s; KiB, MiB). User functions that were charged
// attributed cost are marked with the share it makes of their flat.
func (t *Table) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	writeHead(bw, t.SampleType, t.Comments)
	writeProfileNotes(bw, t.Scale, t.Requests, t.NoLines, "rows are functions")
	writeMeasuredNote(bw, t.Measured, t.Total, t.Unit, "in no row")
	fmt.Fprintf(bw, "Showing nodes accounting for %s, %.2f%% of %s total", units.FormatValue(float64(t.Shown), t.Unit), Pct(t.Shown, t.Total), units.FormatValue(float64(t.Total), t.Unit))
	if t.Requests > 0 {
		fmt.Fprintf(bw, " (%d requests)", t.Requests)
	}
	bw.WriteString("\n")
	if len(t.Rows) < t.Funcs {
		what := "functions"
		if t.Lines {
			what = "lines"
		}
		fmt.Fprintf(bw, "Showing top %d %s out of %d\n", len(t.Rows), what, t.Funcs)
	}
	fmt.Fprintf(bw, "%10s %6s %6s %10s %6s ", "flat", "flat%", "sum%", "cum", "cum%")
	if t.Requests > 0 {
		fmt.Fprintf(bw, "%10s %10s ", "flat/req", "cum/req")
	}
	bw.WriteString(" name\n")
	for _, r := range t.Rows {
		fmt.Fprintf(bw, "%10s %5.2f%% %5.2f%% %10s %5.2f%% ", units.FormatValue(float64(r.Flat), t.Unit), r.FlatPct, r.SumPct, units.FormatValue(float64(r.Cum), t.Unit), r.CumPct)
		if t.Requests > 0 {
			fmt.Fprintf(bw, "%10s %10s ", units.FormatValue(r.FlatPerReq, t.Unit), units.FormatValue(r.CumPerReq, t.Unit))
		}
		bw.WriteString(" " + RowLabel(r))
		if t.User && r.User && r.Attributed > 0 {
			fmt.Fprintf(bw, " (%s in callees outside user code)", units.FormatPct(Pct(r.Attributed, r.Flat)))
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

// RowLabel names a row as the user reads it: the function (with its file
// for Python and Ruby, whose names do not say where they are), and at line
// granularity its file and line, as pprof's -lines prints them.
func RowLabel(r Row) string {
	if r.Line > 0 {
		return r.Function + " " + r.File + ":" + strconv.FormatInt(r.Line, 10)
	}
	return funcname.Label(r.Function, r.File)
}

// writeHead writes the lines a top table and a listing start with: the
// profile's sample type, as pprof prints it, and the notes on it.
func writeHead(bw *bufio.Writer, sampleType string, comments []string) {
	fmt.Fprintf(bw, "Type: %s\n", sampleType)
	for _, c := range comments {
		fmt.Fprintf(bw, "Note: %s\n", c)
	}
}

// writeProfileNotes writes the notes on the figures: how the per-request
// ones were scaled (when there are requests), and that a profile without
// line numbers shows functions instead (instead says how).
func writeProfileNotes(bw *bufio.Writer, scale float64, requests int64, noLines bool, instead string) {
	if n := ScaleNote(scale); n != "" && requests > 0 {
		fmt.Fprintf(bw, "Note: %s\n", n)
	}
	if noLines {
		bw.WriteString("Note: the profile has no line numbers (perf records none, nor py-spy with --nolineno): " + instead + "\n")
	}
}

// writeMeasuredNote says how much of a profile's total is perflab's own
// measuring, which no row or function of a view includes (where says so).
func writeMeasuredNote(bw *bufio.Writer, measured, total int64, unit, where string) {
	if measured > 0 {
		fmt.Fprintf(bw, "Note: perflab's measuring (the profile and trace requests the service served for it) is %s, %s of the total, %s\n",
			units.FormatValue(float64(measured), unit), units.FormatPct(Pct(measured, total)), where)
	}
}
