package report

import (
	"fmt"
	"html/template"
	"io"

	"perflab/internal/runfmt"
)

// WriteCompareHTML writes a self-contained page of a comparison: the metric
// table, the function gainers and losers, the --fail-on verdict, the
// warnings and, when flame is not empty, the differential flame graph per
// request (vermilion where new spends more, blue where less), a page the
// caller drew from the two sides' CPU profiles (titled
// CompareFlameTitle), in an iframe whose document is inlined with srcdoc,
// so the page needs no other file and no network.
func WriteCompareHTML(w io.Writer, c *runfmt.Comparison, flame []byte) error {
	v := compareView{C: c, Functions: map[string][]runfmt.FunctionDelta{}, Per: perUnit(c), Flame: string(flame)}
	for _, r := range c.Functions {
		v.Functions[string(r.Profile)] = append(v.Functions[string(r.Profile)], r)
	}
	return compareTmpl.Execute(w, v)
}

// CompareFlameTitle is the title of a comparison's differential flame
// graph: "CPU per request: new vs base".
func CompareFlameTitle(c *runfmt.Comparison) string {
	return fmt.Sprintf("CPU per %s: %s vs %s", perUnit(c), c.New.Label, c.Base.Label)
}

type compareView struct {
	C         *runfmt.Comparison
	Functions map[string][]runfmt.FunctionDelta
	Flame     string
	Per       string // what costs are per: "request", or "run" (batch)
}

var compareTmpl = template.Must(template.New("compare").Funcs(template.FuncMap{
	"title":   metricTitle,
	"summary": FormatSummary,
	"delta":   FormatMetricDelta,
	"pn":      cmpPN,
	"fname":   cmpFuncName,
	"cost":    cmpCost,
	"cdelta":  cmpCostDelta,
	"fp":      cmpFuncP,
	"class":   deltaClass,
	"sign": func(d float64) string {
		if d < 0 {
			return "better"
		}
		return "worse"
	},
}).Parse(compareHTML))

const compareHTML = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>perflab compare: {{.C.Base.Label}} vs {{.C.New.Label}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{padding:.25em .8em;text-align:right;border-bottom:1px solid #ddd}
th:first-child,td:first-child{text-align:left}.better{color:#1565c0;font-weight:600}.worse{color:#c62828;font-weight:600}
.same{color:#777}.failed{color:#c62828;font-weight:700}code{font-size:13px}
iframe{width:100%;height:680px;border:1px solid #ccc}.nodata{color:#8a5a00}ul.warn li{color:#8a5a00}
</style></head><body>
<h1>{{.C.New.Label}} vs {{.C.Base.Label}}</h1>
<p>{{.C.Base.Label}}: {{len .C.Base.Runs}} run(s) ({{range $i, $r := .C.Base.Runs}}{{if $i}}, {{end}}<code>{{$r}}</code>{{end}});
{{.C.New.Label}}: {{len .C.New.Runs}} run(s) ({{range $i, $r := .C.New.Runs}}{{if $i}}, {{end}}<code>{{$r}}</code>{{end}}).
Medians ± the half-width of their 95% confidence intervals; "~" marks no significant change (Mann–Whitney U, α = 0.05), "?" too few runs to tell.</p>
<table><tr><th>metric</th><th>{{.C.Base.Label}}</th><th>{{.C.New.Label}}</th><th>delta</th><th></th></tr>
{{range .C.Metrics}}<tr><td>{{title .Name}}</td><td>{{summary .Base .Unit}}</td><td>{{summary .New .Unit}}</td><td class="{{class .}}">{{delta .}}</td><td>{{pn .}}</td></tr>
{{end}}</table>
{{with .C.Thresholds}}<h2>--fail-on</h2><table><tr><th>rule</th><th>change</th><th>significant</th><th>result</th></tr>
{{range .}}<tr><td><code>{{.Rule}}</code></td><td>{{if .Measured}}{{printf "%+.1f%%" .DeltaPct}}{{else}}not measured{{end}}</td><td>{{.Significant}}</td><td{{if .Violated}} class="failed"{{end}}>{{if .Violated}}FAILED{{else}}ok{{end}}</td></tr>
{{end}}</table>{{end}}
{{if .Flame}}<h2>Differential flame graph (CPU per {{.Per}})</h2>
<p>Widths follow {{.C.New.Label}} per {{.Per}}; vermilion frames cost more per {{.Per}} than in {{.C.Base.Label}}, blue frames less. "new" and "base" show each profile alone; the list beside the graph names the functions whose own cost changed most (click one to find it).</p>
<iframe title="differential flame graph" sandbox="allow-scripts" srcdoc="{{.Flame}}"></iframe>{{else}}<h2>Differential flame graph (CPU per {{.Per}})</h2>
<p class="nodata">Not drawn: a CPU profile is needed on both sides, and {{if .C.Warnings}}the warnings below say which runs had none{{else}}these runs had none{{end}}.</p>{{end}}
{{range $kind, $rows := .Functions}}<h2>{{if eq $kind "cpu"}}CPU{{else}}Allocations{{end}} per {{$.Per}} by function</h2>
<p>User code counts the library code it calls; library rows count their own cost.</p>
<table><tr><th>function</th><th>base</th><th>new</th><th>delta</th><th></th></tr>
{{range $rows}}<tr><td><code>{{fname .}}</code></td><td>{{cost .Base .Unit}}</td><td>{{cost .New .Unit}}</td><td class="{{sign .Delta}}">{{cdelta .}}</td><td>{{fp .}}</td></tr>
{{end}}</table>{{end}}
{{with .C.Warnings}}<h2>Warnings</h2><ul class="warn">{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}

</body></html>
`
