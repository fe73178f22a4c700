package analysis

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// flaskProfile builds a py-spy-like CPU profile: stacks written root first as
// "name@file;name@file", files relative to a site-packages directory
// unless they start with "/".
func flaskProfile(t *testing.T, samples map[string]int64) *profile.Profile {
	t.Helper()
	p := &profile.Profile{Period: 1, SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}}, PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}}
	locs := map[string]*profile.Location{}
	for stack, v := range samples {
		frames := strings.Split(stack, ";")
		s := &profile.Sample{Value: []int64{v}}
		for i := len(frames) - 1; i >= 0; i-- {
			l, ok := locs[frames[i]]
			if !ok {
				name, file, _ := strings.Cut(frames[i], "@")
				line := int64(1)
				if f, n, ok := strings.Cut(file, ":"); ok {
					file = f
					line, _ = strconv.ParseInt(n, 10, 64)
				}
				if !strings.HasPrefix(file, "/") {
					file = "/venv/lib/python3.11/site-packages/" + file
				}
				fn := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, Filename: file}
				l = &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn, Line: line}}}
				p.Function, p.Location = append(p.Function, fn), append(p.Location, l)
				locs[frames[i]] = l
			}
			s.Location = append(s.Location, l)
		}
		p.Sample = append(p.Sample, s)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	return p
}

// The frames of a gunicorn sync worker serving a Flask app.
const (
	flaskWorker   = "<unknown>@/venv/bin/gunicorn;run@gunicorn/app/wsgiapp.py;SyncWorker.run@gunicorn/workers/sync.py;"
	flaskRequest  = flaskWorker + "SyncWorker.handle@gunicorn/workers/sync.py;SyncWorker.handle_request@gunicorn/workers/sync.py;"
	flaskDispatch = flaskRequest + "Flask.wsgi_app@flask/app.py;Flask.full_dispatch_request@flask/app.py;Flask.dispatch_request@flask/app.py;"
	flaskJSON     = "dumps@/usr/lib/python3.11/json/__init__.py;JSONEncoder.encode@/usr/lib/python3.11/json/encoder.py;_iterencode_dict@/usr/lib/python3.11/json/encoder.py"
)

// flaskInput is a Flask app's two endpoints, 100 requests each: /report
// 200 µs of CPU in render_report, /export 700 in export_orders (50 of
// them in stacks py-spy read without their outer frames), 100 per request
// of each endpoint in gunicorn's and Flask's handling outside the views,
// and 40 in the master: 520 µs per request of the load, as measured.
func flaskInput(t *testing.T) EndpointInput {
	cpu := flaskProfile(t, map[string]int64{
		flaskDispatch + "report@/srv/app/app.py;render_report@/srv/app/app.py":                                      200 * 100,
		flaskDispatch + "export@/srv/app/app.py;export_orders@/srv/app/app.py;" + flaskJSON:                         650 * 100,
		"_iterencode_dict@/usr/lib/python3.11/json/encoder.py;_iterencode_list@/usr/lib/python3.11/json/encoder.py": 50 * 100,
		flaskRequest + "Response.write@gunicorn/http/wsgi.py":                                                       60 * 100,
		flaskDispatch[:strings.Index(flaskDispatch, "Flask.full")] + "Flask.make_response@flask/app.py":             40 * 100,
		"<unknown>@/venv/bin/gunicorn;run@gunicorn/app/wsgiapp.py;Arbiter.run@gunicorn/arbiter.py":                  40 * 100,
	})
	load := &runfmt.LoadResult{Requests: 210, Status: map[string]int64{"200": 200}, Targets: []runfmt.TargetStats{
		{Target: "GET http://127.0.0.1:8000/report", Requests: 105, Errors: 5, Status: map[string]int64{"200": 100}},
		{Target: "GET http://127.0.0.1:8000/export", Requests: 105, Errors: 5, Status: map[string]int64{"200": 100}},
	}}
	return EndpointInput{CPU: cpu, Requests: 200, Load: load, Target: &runfmt.TargetSummary{CPUMsPerRequest: 0.52}}
}

// TestEndpointsFlask: each view gets its own CPU and the partial stacks
// under it, per request its target answered (not per request sent), plus
// the requests' handling outside the views, charged to every request; the
// master's CPU is under no request; the parts add up to the CPU measured.
func TestEndpointsFlask(t *testing.T) {
	e := Endpoints(flaskInput(t))
	if e == nil || len(e.Handlers) != 2 {
		t.Fatalf("endpoints %+v; want two handlers", e)
	}
	total := 520.0 * 200
	// Of 1040 µs per pair of requests: 900 in the views, 100 outside
	// them, 40 in the master.
	for name, c := range map[string][2]float64{"handlers": {e.ExplainedPct, 900}, "requests": {e.RequestPct, 100}, "no request": {e.UnattributedPct, 40}} {
		if want := 100 * c[1] / 1040; !near(c[0], want) {
			t.Errorf("%s %.3f%%; want %.3f%%", name, c[0], want)
		}
	}
	if !near(e.RequestUsPerRequest, 50) {
		t.Errorf("requests' handling %.1f µs per request; want 50 (10000 over 200 answered)", e.RequestUsPerRequest)
	}
	want := map[string]struct {
		handler, owner string
		us             float64
	}{
		"/report": {"report", "render_report", 200 + 50},
		"/export": {"export", "export_orders", 700 + 50},
	}
	sum := e.UnattributedPct / 100 * total
	for _, tc := range e.Targets {
		path := tc.Target[strings.LastIndexByte(tc.Target, '/'):]
		w := want[path]
		if !near(tc.CPUUsPerRequest, w.us) || tc.Requests != 100 {
			t.Errorf("%s: %.1f µs per request over %d; want %.0f over 100 answered", path, tc.CPUUsPerRequest, tc.Requests, w.us)
		}
		sum += tc.CPUUsPerRequest * float64(tc.Requests)
	}
	if math.Abs(sum-total) > 1 {
		t.Errorf("targets and the rest add up to %.0f µs; measured %.0f", sum, total)
	}
	for _, h := range e.Handlers {
		w := want[h.Targets[0][strings.LastIndexByte(h.Targets[0], '/'):]]
		if h.Handler != w.handler || h.Owner != w.owner || !h.PerTargetRequest {
			t.Errorf("handler %+v; want %s owned by %s", h, w.handler, w.owner)
		}
	}
	if e.Dispatch != "Flask" {
		t.Errorf("dispatch %q; want Flask", e.Dispatch)
	}
}

// TestEndpointsPartialStackSplit: a partial stack whose outermost
// function runs under two handlers is split between them in proportion;
// one whose outermost function no handler runs stays unattributed.
func TestEndpointsPartialStackSplit(t *testing.T) {
	enc := "JSONEncoder.encode@/usr/lib/python3.11/json/encoder.py"
	in := flaskInput(t)
	in.CPU = flaskProfile(t, map[string]int64{
		flaskDispatch + "report@/srv/app/app.py;" + enc:                        300,
		flaskDispatch + "export@/srv/app/app.py;" + enc:                        100,
		enc + ";leaf@/usr/lib/python3.11/json/encoder.py":                      400,
		"Thread.run@/usr/lib/python3.11/threading.py;poll@/srv/app/metrics.py": 200,
	})
	e := Endpoints(in)
	got := map[string]float64{}
	for _, h := range e.Handlers {
		got[h.Handler] = h.CPUPct
	}
	if !near(got["report"], 60) || !near(got["export"], 20) || !near(e.UnattributedPct, 20) {
		t.Errorf("report %.1f%%, export %.1f%%, no request %.1f%%; want 60, 20, 20", got["report"], got["export"], e.UnattributedPct)
	}
}

// TestRouteFinderDjango: a Django view below the middleware chain is the
// handler, not the middleware, and a class-based view's method is found
// below Django's plumbing.
func TestRouteFinderDjango(t *testing.T) {
	base := "<unknown>@/venv/bin/gunicorn;SyncWorker.handle_request@gunicorn/workers/sync.py;WSGIHandler.__call__@django/core/handlers/wsgi.py;" +
		"BaseHandler.get_response@django/core/handlers/base.py;inner@django/core/handlers/exception.py;BaseHandler._get_response@django/core/handlers/base.py;"
	in := flaskInput(t)
	in.Load.Targets[0].Target, in.Load.Targets[1].Target = "GET http://127.0.0.1:8000/orders/", "GET http://127.0.0.1:8000/report"
	in.CPU = flaskProfile(t, map[string]int64{
		base + "order_list@/srv/shop/views.py;render_orders@/srv/shop/views.py":                                                                       300,
		base + "View.as_view.<locals>.view@django/views/generic/base.py;View.dispatch@django/views/generic/base.py;ReportView.get@/srv/shop/views.py": 100,
	})
	e := Endpoints(in)
	var names []string
	for _, h := range e.Handlers {
		names = append(names, h.Handler)
	}
	if strings.Join(names, ",") != "order_list,ReportView.get" || e.Dispatch != "Django" {
		t.Errorf("handlers %q from %q; want order_list, ReportView.get from Django's dispatch", names, e.Dispatch)
	}
	if len(e.Targets) != 2 {
		t.Errorf("targets %+v; want each view tied to its path by name", e.Targets)
	}
}

// viewsPy is a Flask app whose views' names say nothing of their routes.
const viewsPy = `from flask import Flask
app = Flask(__name__)

@app.route("/api/v1/orders/<int:order_id>")
def show(order_id):
    return render(order_id)


@app.get('/reports/daily/')
@login_required
def summary():
    return build()
`

// TestEndpointsViewRules: views are tied to targets by the URL rules of
// their decorators, read from their source, where their names match no
// target's path.
func TestEndpointsViewRules(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "views.py")
	if err := os.WriteFile(file, []byte(viewsPy), 0o644); err != nil {
		t.Fatal(err)
	}
	in := flaskInput(t)
	in.Load.Targets[0].Target, in.Load.Targets[1].Target = "GET http://127.0.0.1:8000/api/v1/orders/7", "GET http://127.0.0.1:8000/reports/daily"
	in.CPU = flaskProfile(t, map[string]int64{
		flaskDispatch + "show@" + file + ":6;render@" + file + ":20":    300,
		flaskDispatch + "summary@" + file + ":12;build@" + file + ":30": 100,
	})
	for _, src := range []*Sources{nil, {}} {
		in.Sources = src
		e := Endpoints(in)
		tied := map[string]string{}
		for _, h := range e.Handlers {
			tied[h.Handler] = strings.Join(h.Targets, ",")
		}
		want := map[string]string{"show": in.Load.Targets[0].Target, "summary": in.Load.Targets[1].Target}
		if src == nil {
			want = map[string]string{"show": "", "summary": ""} // by name: no match
		}
		for h, w := range want {
			if tied[h] != w {
				t.Errorf("sources %v: %s tied to %q; want %q", src != nil, h, tied[h], w)
			}
		}
	}
}

func TestRuleMatches(t *testing.T) {
	for _, tc := range []struct {
		rule, target string
		want         bool
	}{
		{"/report", "GET http://h/report", true},
		{"/report", "GET http://h/report/?x=1", true},
		{"/items/<int:id>", "GET http://h/items/7", true},
		{"/items/{item_id}", "POST http://h/items/abc", true},
		{"/items/<id>", "GET http://h/items/", false},
		{"/items/<id>", "GET http://h/items/7/parts", false},
		{"/export", "GET http://h/report", false},
		{"/", "GET http://h/", true},
	} {
		if got := ruleMatches(tc.rule, tc.target); got != tc.want {
			t.Errorf("ruleMatches(%q, %q) = %v; want %v", tc.rule, tc.target, got, tc.want)
		}
	}
}

// FuzzViewRules: any source and line read for a view's rules returns
// without a panic, and only rules its decorators declare.
func FuzzViewRules(f *testing.F) {
	f.Add([]byte(viewsPy), "show", int64(6))
	f.Add([]byte(viewsPy), "summary", int64(12))
	f.Add([]byte("@app.route('/x')\ndef"), "x", int64(2))
	f.Add([]byte("\x00binary"), "f", int64(1))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, content []byte, fn string, line int64) {
		path := filepath.Join(dir, "views.py")
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Skip(err)
		}
		for _, r := range viewRules(&Sources{}, fn, path, line) {
			if !strings.Contains(string(content), r) {
				t.Errorf("rule %q is not in the source", r)
			}
		}
	})
}

// TestEndpointsAddUpBesideStartup: with a fifth of the CPU measured spent
// by workers starting up before they were sampled, each handler's share
// is of the CPU measured and the start-up is unattributed: the parts
// still add up to 100%.
func TestEndpointsAddUpBesideStartup(t *testing.T) {
	in := flaskInput(t)
	in.Target = &runfmt.TargetSummary{CPUMsPerRequest: 10}
	in.UnsampledStartMs = 2
	e := Endpoints(in)
	if sum := e.ExplainedPct + e.RequestPct + e.UnattributedPct; !near(sum, 100) || e.UnattributedPct < 20 {
		t.Errorf("handlers %.1f%% + requests %.1f%% + no request %.1f%% = %.1f%%; want 100, with the start-up's 20 unattributed",
			e.ExplainedPct, e.RequestPct, e.UnattributedPct, sum)
	}
}
