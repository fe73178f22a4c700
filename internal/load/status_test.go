package load

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"perflab/internal/runfmt"
)

func TestParseStatusSet(t *testing.T) {
	for _, tc := range []struct {
		spec     string
		in, out  []int
		badInput bool
	}{
		{spec: "200-399", in: []int{200, 301, 399}, out: []int{199, 400, 404, 503}},
		{spec: "200,204", in: []int{200, 204}, out: []int{201, 404}},
		{spec: "2xx, 404", in: []int{200, 299, 404}, out: []int{300, 403, 500}},
		{spec: "5XX", in: []int{500, 599}, out: []int{200}},
		{spec: "", badInput: true},
		{spec: "99", badInput: true},
		{spec: "1000", badInput: true},
		{spec: "399-200", badInput: true},
		{spec: "200-", badInput: true},
		{spec: "0xx", badInput: true},
		{spec: "ok", badInput: true},
	} {
		set, err := ParseStatusSet(tc.spec)
		if tc.badInput {
			if err == nil {
				t.Errorf("%q accepted", tc.spec)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.spec, err)
			continue
		}
		for _, c := range tc.in {
			if !set.Has(c) {
				t.Errorf("%q does not hold %d", tc.spec, c)
			}
		}
		for _, c := range tc.out {
			if set.Has(c) {
				t.Errorf("%q holds %d", tc.spec, c)
			}
		}
	}
	var none *StatusSet
	if !none.Has(200) || !none.Has(399) || none.Has(404) || none.Has(503) {
		t.Errorf("the default set is not 200-399")
	}
}

// TestUnexpectedStatusIsAnError: a service answering 404 (or 503) to
// everything does not serve the load: each response is an error of its
// class's kind, unless --expect-status says that status is the answer.
func TestUnexpectedStatusIsAnError(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine string) {
		for _, code := range []int{404, 503} {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(code) }))
			r := attack(t, Config{Targets: target(t, srv.URL), Concurrency: 2, Requests: 50, Timeout: 5 * time.Second, engine: engine})
			kind := statusKind(code)
			if r.Requests != 50 || r.Errors != 50 || r.ErrorKinds[kind] != 50 || r.Status[strconv.Itoa(code)] != 50 {
				t.Errorf("all %d: requests %d, errors %v, status %v; want 50 errors of kind %s", code, r.Requests, r.ErrorKinds, r.Status, kind)
			}
			set, _ := ParseStatusSet(strconv.Itoa(code))
			r = attack(t, Config{Targets: target(t, srv.URL), Concurrency: 2, Requests: 50, Timeout: 5 * time.Second, ExpectStatus: set, engine: engine})
			if r.Requests != 50 || r.Errors != 0 {
				t.Errorf("all %d with --expect-status %d: requests %d, errors %v; want none", code, code, r.Requests, r.ErrorKinds)
			}
			srv.Close()
		}
	})
}

// TestLocalPortsRecorded: every connection a load opens has its local
// port recorded, with either engine.
func TestLocalPortsRecorded(t *testing.T) {
	forEachEngine(t, func(t *testing.T, engine string) {
		var seen sync.Map
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen.Store(r.RemoteAddr, true)
		}))
		srv.Start()
		defer srv.Close()
		var ports PortSet
		attack(t, Config{Targets: target(t, srv.URL), Concurrency: 3, Requests: 30, DisableKeepAlive: true, Timeout: 5 * time.Second, LocalPorts: &ports, engine: engine})
		n := 0
		seen.Range(func(k, _ any) bool {
			n++
			ap, err := netip.ParseAddrPort(k.(string))
			if err != nil || !ports.Has(ap.Port()) {
				t.Errorf("client %v: its port is not recorded", k)
			}
			return true
		})
		if n == 0 {
			t.Fatal("the server saw no client")
		}
		if ports.Has(1) {
			t.Error("port 1 recorded")
		}
	})
}

// TestHistogramEncodingErrorIsSaid: a histogram that cannot be encoded is
// not dropped without a word: the result says why it has none, and merge
// refuses it naming that.
func TestHistogramEncodingErrorIsSaid(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	defer func(v int32) { histEncoding = v }(histEncoding)
	histEncoding = -1 // not an encoding hdrhistogram-go knows
	u := srv.URL
	r := attack(t, Config{Targets: append(target(t, u), target(t, u+"/b")...), Concurrency: 2, Requests: 20, Timeout: 5 * time.Second})
	if r.Histogram != "" || !strings.Contains(r.HistogramError, "encoding the latency histogram") || !strings.Contains(r.HistogramError, "target GET") {
		t.Errorf("histogram %q, error %q; want none, and the error said for the load and its targets", r.Histogram, r.HistogramError)
	}
	if _, err := Merge([]*runfmt.LoadResult{r}); err == nil || !strings.Contains(err.Error(), "no latency histogram") {
		t.Errorf("merge: %v; want it refused, saying why", err)
	}
}
