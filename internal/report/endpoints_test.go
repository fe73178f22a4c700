package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

// TestVerdictEndpointsTargetCPU: a target's CPU/request is its own figure
// (its handlers' and its share of the requests' handling), and the table
// says what the handlers explain, the requests' handling and the rest.
func TestVerdictEndpointsTargetCPU(t *testing.T) {
	r := twoEndpointRun()
	var b bytes.Buffer
	if err := WriteVerdict(&b, r, "dir"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if want := "Per endpoint (CPU from Flask handlers under the framework's dispatch in the CPU profile: 88% of the CPU; the requests' handling outside the handlers 9.5%, 1.24 ms per request, is in every target's CPU/request; under no request 2.5%"; !strings.Contains(out, want) {
		t.Errorf("verdict lacks %q:\n%s", want, out)
	}
	for _, re := range []string{
		`(?m)^  GET /search\?q=steel +100 +0 +1\.20 ms +4\.80 ms +4\.58 ms +12% +search$`,
		`(?m)^  GET /export +100 +0 +2\.50 ms +10\.00 ms +21\.71 ms +76% +export → export_orders 69%$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("verdict lacks a row matching %s:\n%s", re, out)
		}
	}
}

// twoEndpointRun is a run of a Flask app loaded at /search and /export,
// with its per-endpoint CPU.
func twoEndpointRun() *runfmt.Run {
	r := culpritRun()
	r.Load.Targets = r.Load.Targets[:2]
	r.Load.Targets[1].Target = "GET http://127.0.0.1:8080/export"
	r.Endpoints = &runfmt.Endpoints{Dispatch: "Flask",
		ExplainedPct: 88, RequestPct: 9.5, RequestUsPerRequest: 1240, UnattributedPct: 2.5,
		Handlers: []runfmt.EndpointCPU{
			{Handler: "export", Targets: []string{"GET http://127.0.0.1:8080/export"}, CPUPct: 76, CPUUsPerRequest: 20470, PerTargetRequest: true, Owner: "export_orders", OwnerPct: 69},
			{Handler: "search", Targets: []string{"GET http://127.0.0.1:8080/search?q=steel"}, CPUPct: 12, CPUUsPerRequest: 3340, PerTargetRequest: true},
		},
		Targets: []runfmt.TargetCPU{
			{Target: "GET http://127.0.0.1:8080/search?q=steel", Requests: 100, CPUUsPerRequest: 4580, HandlerUsPerRequest: 3340},
			{Target: "GET http://127.0.0.1:8080/export", Requests: 100, CPUUsPerRequest: 21710, HandlerUsPerRequest: 20470},
		}}
	return r
}

// TestEndpointsOfOneURL: a load of one URL has no per-endpoint table (the
// run's own figures are that endpoint's), whatever handlers ran; a run
// without a load lists its handlers, with no target named.
func TestEndpointsOfOneURL(t *testing.T) {
	r := culpritRun()
	r.Load.Targets = r.Load.Targets[:1]
	if rows := endpointTable(r); rows != nil {
		t.Errorf("one URL's load has a per-endpoint table: %+v", rows)
	}
	r.Load = nil
	rows := endpointTable(r)
	if len(rows) != len(r.Endpoints.Handlers) {
		t.Fatalf("a run without a load lists %d rows; want its %d handlers", len(rows), len(r.Endpoints.Handlers))
	}
	for _, row := range rows {
		if row.Target != "" {
			t.Errorf("a run without a load names the target %q", row.Target)
		}
	}
}

// TestEndpointsMargin: a target's CPU/request carries its margin from the
// count of its handlers' samples, and a wide one is explained under the
// table, naming the endpoint and the samples it rests on.
func TestEndpointsMargin(t *testing.T) {
	r := twoEndpointRun()
	e := r.Endpoints
	e.Handlers[0].Samples, e.Handlers[0].MarginUsPerRequest = 380, 1000
	e.Handlers[1].Samples, e.Handlers[1].MarginUsPerRequest = 41, 1000
	e.Handlers = append(e.Handlers, runfmt.EndpointCPU{Handler: "healthz", CPUPct: 1, CPUUsPerRequest: 20, Samples: 3, MarginUsPerRequest: 22})
	e.Targets[0].MarginUsPerRequest, e.Targets[1].MarginUsPerRequest = 1000, 100
	var b bytes.Buffer
	if err := WriteVerdict(&b, r, "dir"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, re := range []string{
		`(?m)^  GET /search\?q=steel +100 +0 +1\.20 ms +4\.80 ms +4\.58 ms ±22% +12% +search$`,
		`(?m)^  GET /export +100 +0 +2\.50 ms +10\.00 ms +21\.71 ms +76% +export → export_orders 69%$`, // ±0.5%: left out
		`(?m)^  \(not a load target\) .* 20\.0 µs\* ±110% +1\.0% +healthz$`,
		`(?m)^  ± is the 95% margin from the count of a handler's samples alone: healthz rests on 3 samples \(±110%\); a longer run \(--duration\) or a higher --perf-hz narrows it$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("verdict lacks a line matching %s:\n%s", re, out)
		}
	}
	if note, want := marginNote(endpointTable(r)[:2], nil), "search, for GET /search?q=steel, rests on 41 samples (±22%)"; !strings.Contains(note, want) {
		t.Errorf("the margin note of the targets' rows is %q; want it to say %q", note, want)
	}
	// From a profiler that counts waits for a CPU as work, the note says
	// what part of every row's margin they are.
	if note, want := marginNote(endpointTable(r)[:2], &runfmt.Endpoints{WaitMarginPct: 20}), "(search, for GET /search?q=steel, rests on 41 samples, ±22% in all) and from the threads' waits for a CPU, which the profiler counted as work (the profile stands for 1.2× the CPU measured: ±20% on every row"; !strings.Contains(note, want) {
		t.Errorf("the margin note with waits counted is %q; want it to say %q", note, want)
	}
	// A second handler of /search: the target's margin is of both, and
	// so is its count of samples.
	e.Handlers = append(e.Handlers, runfmt.EndpointCPU{Handler: "search_legacy", Targets: []string{"GET http://127.0.0.1:8080/search?q=steel"}, CPUPct: 2, CPUUsPerRequest: 500, PerTargetRequest: true, Samples: 7, MarginUsPerRequest: 400})
	if note, want := marginNote(endpointTable(r)[:2], nil), "the 2 handlers of GET /search?q=steel rest on 48 samples (±22%)"; !strings.Contains(note, want) {
		t.Errorf("the margin note of a target with two handlers is %q; want it to say %q", note, want)
	}
	b.Reset()
	if err := WriteVerdict(&b, r, "dir"); err != nil {
		t.Fatal(err)
	}
	// Its second handler is listed under it, without a CPU/request of its
	// own (the target's is of both), not as a handler of no target.
	if re := `(?m)^  GET /search\?q=steel +- +- +- +- +- +2\.0% +search_legacy$`; !regexp.MustCompile(re).MatchString(b.String()) {
		t.Errorf("verdict lacks a line matching %s:\n%s", re, b.String())
	}
	if strings.Count(b.String(), notALoadTarget) != 1 { // healthz's row alone
		t.Errorf("the target's second handler is listed as not a load target:\n%s", b.String())
	}
	b.Reset()
	if err := WriteHTMLWith(&b, r, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"4.58 ms ±22%", "healthz rests on 3 samples (±110%)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
}
