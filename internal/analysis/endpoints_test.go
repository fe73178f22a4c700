package analysis

import (
	"slices"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

const dispatch = "runtime.goexit;net/http.(*conn).serve;net/http.serverHandler.ServeHTTP;net/http.(*ServeMux).ServeHTTP;net/http.HandlerFunc.ServeHTTP;"

func endpointsProfile(t *testing.T) EndpointInput {
	p := build(t, []string{"cpu/nanoseconds"},
		smp{dispatch + "demo.(*app).handleSearch;demo.(*app).serveSearch;demo.searchLowerEachTime;strings.ToLower", []int64{300}},
		smp{dispatch + "demo.(*app).handleSearch;demo.(*app).serveSearch;demo.writeJSON;encoding/json.Marshal", []int64{50}},
		smp{dispatch + "demo.(*app).handleItem;demo.(*app).serveItem;demo.debugPrintItem;fmt.Fprintln", []int64{400}},
		smp{dispatch + "demo.(*app).handleIngest;demo.parseLogLinesNaive", []int64{100}},
		smp{"runtime.goexit;net/http.(*conn).serve;net/http.(*conn).readRequest", []int64{50}},
		smp{"runtime.goexit;runtime.gcBgMarkWorker", []int64{100}},
	)
	load := &runfmt.LoadResult{Requests: 300, Targets: []runfmt.TargetStats{
		{Target: "GET http://127.0.0.1:8080/search?q=steel", Requests: 100},
		{Target: "GET http://127.0.0.1:8080/api/item?id=7", Requests: 100},
		{Target: "GET http://127.0.0.1:8080/ingest", Requests: 50},
		{Target: "POST http://127.0.0.1:8080/ingest", Requests: 50},
	}}
	return EndpointInput{CPU: p, Requests: 300, Load: load, Target: &runfmt.TargetSummary{CPUMsPerRequest: 1}}
}

func TestEndpoints(t *testing.T) {
	e := Endpoints(endpointsProfile(t))
	if e == nil || !near(e.ExplainedPct, 85) {
		t.Fatalf("endpoints %+v; want 85%% explained", e)
	}
	want := map[string]struct {
		targets []string
		pct     float64
		owner   string
		usReq   float64
	}{
		// 1 ms of CPU per request over 300 requests; search's 35% is
		// 350 µs per request of the load, 1050 µs per /search request.
		"demo.(*app).handleSearch": {[]string{"GET http://127.0.0.1:8080/search?q=steel"}, 35, "demo.searchLowerEachTime", 1050},
		"demo.(*app).handleItem":   {[]string{"GET http://127.0.0.1:8080/api/item?id=7"}, 40, "demo.debugPrintItem", 1200},
		"demo.(*app).handleIngest": {[]string{"GET http://127.0.0.1:8080/ingest", "POST http://127.0.0.1:8080/ingest"}, 10, "demo.parseLogLinesNaive", 300},
	}
	if len(e.Handlers) != len(want) {
		t.Fatalf("handlers %+v; want %d", e.Handlers, len(want))
	}
	for _, h := range e.Handlers {
		w, ok := want[h.Handler]
		if !ok {
			t.Errorf("unexpected handler %+v", h)
			continue
		}
		if strings.Join(h.Targets, ",") != strings.Join(w.targets, ",") || !near(h.CPUPct, w.pct) || h.Owner != w.owner || !near(h.CPUUsPerRequest, w.usReq) || !h.PerTargetRequest {
			t.Errorf("%s = %+v; want targets %v, %.0f%%, owner %s, %.0f µs/request", h.Handler, h, w.targets, w.pct, w.owner, w.usReq)
		}
	}
	if e.Note != "" {
		t.Errorf("note %q; every target has a handler", e.Note)
	}
}

// TestEndpointsRouterIsNoHandler: the mux's own work (matching a route,
// answering 404) belongs to the requests' handling, not to a handler
// named after the router.
func TestEndpointsRouterIsNoHandler(t *testing.T) {
	in := endpointsProfile(t)
	in.CPU = build(t, []string{"cpu/nanoseconds"},
		smp{dispatch + "demo.(*app).handleSearch;strings.ToLower", []int64{800}},
		smp{"runtime.goexit;net/http.(*conn).serve;net/http.serverHandler.ServeHTTP;net/http.(*ServeMux).ServeHTTP;net/http.(*ServeMux).findHandler", []int64{150}},
		smp{"runtime.goexit;net/http.(*conn).serve;net/http.serverHandler.ServeHTTP;github.com/go-chi/chi/v5.(*Mux).ServeHTTP;github.com/go-chi/chi/v5.(*Mux).routeHTTP", []int64{50}},
	)
	for _, h := range Endpoints(in).Handlers {
		if strings.Contains(h.Handler, "ServeHTTP") {
			t.Errorf("handler %+v: a router's own work is not a handler", h)
		}
	}
}

func TestEndpointsUnattributed(t *testing.T) {
	in := endpointsProfile(t)
	in.CPU = cpuProfile(t) // no net/http dispatch
	e := Endpoints(in)
	if e == nil || len(e.Handlers) != 0 || !strings.Contains(e.Note, "not attributed") {
		t.Errorf("endpoints %+v; want a note that CPU cannot be attributed", e)
	}
	in.Load.Targets = in.Load.Targets[:1]
	if e := Endpoints(in); e != nil {
		t.Errorf("a single-target load without handlers gets %+v; want nothing", e)
	}
}

func TestEndpointsUnmatchedTarget(t *testing.T) {
	in := endpointsProfile(t)
	in.Load.Targets = append(in.Load.Targets, runfmt.TargetStats{Target: "GET http://127.0.0.1:8080/render", Requests: 10})
	e := Endpoints(in)
	if !strings.Contains(e.Note, "/render") {
		t.Errorf("note %q; want /render named as served by no handler", e.Note)
	}
}

func TestNameAndPathWords(t *testing.T) {
	for in, want := range map[string]string{
		"perflab/internal/demo.(*app).handleItem":    "item",
		"main.handleUserProfiles":                    "profile user",
		"main.main.func1":                            "",
		"github.com/acme/api.(*Server).GetOrders-fm": "order",
	} {
		if got := sortedWords(nameWords(in)); got != want {
			t.Errorf("nameWords(%q) = %q, want %q", in, got, want)
		}
	}
	if got := sortedWords(pathWords("GET http://h:1/api/v1/items/7?id=3")); got != "7 item" && got != "item" {
		t.Errorf("pathWords = %q", got)
	}
}

func sortedWords(m map[string]bool) string {
	var ws []string
	for w := range m {
		ws = append(ws, w)
	}
	slices.Sort(ws)
	return strings.Join(ws, " ")
}

// TestEndpointsPerRequestAnswered: a target's CPU per request divides by
// the requests of it the service answered, not those sent: /search's
// 100 sent, 20 refused, 80 answered.
func TestEndpointsPerRequestAnswered(t *testing.T) {
	in := endpointsProfile(t)
	for i := range in.Load.Targets {
		in.Load.Targets[i].Status = map[string]int64{"200": in.Load.Targets[i].Requests}
	}
	in.Load.Targets[0].Errors, in.Load.Targets[0].Status["200"] = 20, 80
	in.Requests = 280
	e := Endpoints(in)
	for _, h := range e.Handlers {
		// 35% of 1 ms over the 280 answered, over the 80 /search answered.
		if h.Handler == "demo.(*app).handleSearch" && !near(h.CPUUsPerRequest, 0.35*1000*280/80) {
			t.Errorf("search %.1f µs per request; want %.1f (per request answered)", h.CPUUsPerRequest, 0.35*1000*280/80)
		}
	}
	if len(e.Targets) == 0 || e.Targets[0].Requests != 80 {
		t.Errorf("targets %+v; want /search with its 80 answered", e.Targets)
	}
}
