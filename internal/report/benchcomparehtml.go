package report

import (
	"html/template"
	"io"

	"perflab/internal/runfmt"
)

// WriteBenchCompareHTML writes a self-contained page of a comparison of
// two benchmark runs: the sides, the table WriteBenchCompareText prints
// (per benchmark and unit, each side's median ± the half-width of its 95%
// confidence interval, the change and its p-value), the --fail-on checks,
// the warnings and the verdict.
func WriteBenchCompareHTML(w io.Writer, c *runfmt.BenchComparison) error {
	return benchCompareTmpl.Execute(w, c)
}

var benchCompareTmpl = template.Must(template.New("benchcompare").Funcs(template.FuncMap{
	"side":    benchSideText,
	"summary": FormatBenchSummary,
	"delta":   FormatBenchDelta,
	"pn":      benchPN,
	"change":  benchCheckChange,
	"class":   benchDeltaClass,
	// first says whether row i starts a benchmark (its name is shown once).
	"first": func(rows []runfmt.BenchDelta, i int) bool { return i == 0 || rows[i-1].Benchmark != rows[i].Benchmark },
}).Parse(benchCompareHTML))

const benchCompareHTML = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>perflab compare: {{.Base.Run}} vs {{.New.Run}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{padding:.25em .8em;text-align:right;border-bottom:1px solid #ddd}
th:first-child,td:first-child,th:nth-child(2),td:nth-child(2){text-align:left}.better{color:#1565c0;font-weight:600}
.worse{color:#c62828;font-weight:600}.same{color:#777}.failed{color:#c62828;font-weight:700}code{font-size:13px}ul.warn li{color:#8a5a00}
</style></head><body>
<h1>Benchmarks: {{.New.Label}} vs {{.Base.Label}}</h1>
<p>{{.Base.Label}}: {{side .Base}}<br>{{.New.Label}}: {{side .New}}</p>
<p>Medians ± the half-width of their 95% confidence intervals over the timed runs; "~" marks no significant change (Mann–Whitney U, α = 0.05), "?" too few runs to tell.</p>
<table><tr><th>benchmark</th><th>unit</th><th>{{.Base.Label}}</th><th>{{.New.Label}}</th><th>delta</th><th></th></tr>
{{range $i, $d := .Rows}}<tr><td>{{if first $.Rows $i}}<code>{{$d.Benchmark}}</code>{{end}}</td><td>{{$d.Unit}}</td><td>{{summary $d.Base $d.Unit}}</td><td>{{summary $d.New $d.Unit}}</td><td class="{{class $d}}">{{delta $d}}</td><td>{{pn $d}}</td></tr>
{{end}}</table>
{{with .Thresholds}}<h2>--fail-on</h2><table><tr><th>rule</th><th>benchmark</th><th>change</th><th>result</th></tr>
{{range .}}<tr><td><code>{{.Rule}}</code></td><td>{{.Benchmark}}</td><td>{{change .}}</td><td{{if .Violated}} class="failed"{{end}}>{{if .Violated}}FAILED{{else if not .Measured}}ok (not measured){{else}}ok{{end}}</td></tr>
{{end}}</table>{{end}}
{{with .Warnings}}<h2>Warnings</h2><ul class="warn">{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{with .Verdict}}{{if or $.Thresholds (ne .Status "pass")}}<p>Verdict: <strong>{{.Status}}</strong></p>{{end}}{{end}}
</body></html>
`
