package report

import (
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// The predictions of a comparison (runfmt.Predictions): the CPU per
// request the base runs predicted each fix would save, beside what the
// change measured.

// predictionRows are the predictions as rows: each fixed finding, then
// the total against the change of the median CPU per request.
func predictionRows(p *runfmt.Predictions) [][]string {
	rows := make([][]string, 0, len(p.Findings)+1)
	for _, f := range p.Findings {
		rows = append(rows, []string{string(f.Kind) + " " + f.Function, signedMicros(-f.PredictedUs), signedMicros(f.MeasuredUs) + " in the function"})
	}
	if len(p.Findings) > 1 || p.MeasuredUs != 0 {
		rows = append(rows, []string{"in all", signedMicros(-p.PredictedUs), signedMicros(p.MeasuredUs) + " CPU per request (median)"})
	}
	return rows
}

// signedMicros is a change in µs with its sign: "-2.60 ms", "+12.0 µs".
func signedMicros(us float64) string {
	if us < 0 {
		return "-" + units.FormatMicros(-us)
	}
	return "+" + units.FormatMicros(us)
}

// cmpPredictions writes the predictions checked, after the metrics.
func (p *printer) cmpPredictions(pr *runfmt.Predictions) {
	if pr == nil {
		return
	}
	p.f("\nPredicted by the base's findings, and measured (CPU per request):\n")
	p.tabbed(func(tp *printer) {
		tp.row("  fixed finding", "predicted", "measured")
		for _, r := range predictionRows(pr) {
			tp.row("  "+r[0], r[1], r[2])
		}
	})
}

// mdPredictions writes the predictions checked as a markdown table.
func mdPredictions(b *strings.Builder, pr *runfmt.Predictions) {
	if pr == nil {
		return
	}
	b.WriteString("**Predicted by the base's findings, and measured** (CPU per request)\n\n")
	rows := predictionRows(pr)
	for i := range rows {
		rows[i] = []string{mdCode(rows[i][0]), mdText(rows[i][1]), mdText(rows[i][2])}
	}
	mdTable(b, "lrr", []string{"fixed finding", "predicted", "measured"}, rows)
}
