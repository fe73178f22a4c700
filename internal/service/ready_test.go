package service

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"perflab/internal/labtest"
)

// loadProbe is the probe of a load's own request, as perflab run sends it.
func loadProbe(url, method string, header http.Header, body string) ReadyProbe {
	return ReadyProbe{URL: url, Method: method, Header: header, Body: []byte(body), ExpectFlag: "--expect-status"}
}

// TestReadySendsTheLoadsRequest: a POST-only endpoint (405 to GET, 400 to
// an empty body) and one behind a token (401 without it) are ready at the
// first answer to the load's own request; the request they refuse is said
// at once, naming the status, the request and the flag to give.
func TestReadySendsTheLoadsRequest(t *testing.T) {
	postOnly := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		switch {
		case r.Method != http.MethodPost:
			w.Header().Set("Allow", http.MethodPost)
			w.WriteHeader(http.StatusMethodNotAllowed)
		case len(b) == 0 || r.Header.Get("Content-Type") != "application/json":
			w.WriteHeader(http.StatusBadRequest)
		}
	}))
	defer postOnly.Close()
	token := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	defer token.Close()
	jsonType := http.Header{"Content-Type": {"application/json"}}
	for _, tc := range []struct {
		name  string
		probe ReadyProbe
		want  string // "" ready, else in the error
	}{
		{"POST with its body", loadProbe(postOnly.URL, http.MethodPost, jsonType, `{"q":1}`), ""},
		{"GET of a POST-only endpoint", loadProbe(postOnly.URL, http.MethodGet, nil, ""),
			"answered 405 Method Not Allowed to GET " + postOnly.URL + " 5 times in a row (it takes POST): the load counts that status as an error; give --expect-status 405"},
		{"POST without its body", loadProbe(postOnly.URL, http.MethodPost, jsonType, ""), "answered 400 Bad Request to POST"},
		{"with the token", loadProbe(token.URL, http.MethodGet, http.Header{"Authorization": {"Bearer s3cret"}}, ""), ""},
		{"without the token", loadProbe(token.URL, http.MethodGet, nil, ""), "answered 401 Unauthorized to GET " + token.URL},
	} {
		start := time.Now()
		err := WaitReady(t.Context(), tc.probe, 30*time.Second, nil)
		took := time.Since(start)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: WaitReady = %v; want ready", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%s: WaitReady = %v; want one line with %q", tc.name, err, tc.want)
		}
		if took > 2*time.Second {
			t.Errorf("%s: WaitReady took %v; want the first answer to decide, within 2 s", tc.name, took.Round(time.Millisecond))
		}
	}
}

// TestReadyStatusRule: 502, 503 and 504 are a service still starting,
// asked again until it answers an expected status or the timeout passes;
// any other status is final after a few answers in a row, a service that
// fails only some requests is ready; a status the caller expects is
// ready; a health URL that answers 404 is said at once too.
func TestReadyStatusRule(t *testing.T) {
	var code atomic.Int64
	var asked atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.WriteHeader(int(code.Load()))
	}))
	defer srv.Close()
	for _, c := range []int{http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout} {
		code.Store(int64(c))
		asked.Store(0)
		err := WaitReady(t.Context(), loadProbe(srv.URL, "", nil, ""), 300*time.Millisecond, nil)
		if err == nil || !strings.Contains(err.Error(), "not ready after 300ms") || !strings.Contains(err.Error(), http.StatusText(c)) || asked.Load() < 2 {
			t.Errorf("a service answering %d: WaitReady = %v after %d requests; want it asked again until the timeout", c, err, asked.Load())
		}
	}
	for _, c := range []int{http.StatusBadRequest, http.StatusNotFound, http.StatusInternalServerError} {
		code.Store(int64(c))
		asked.Store(0)
		start := time.Now()
		err := WaitReady(t.Context(), loadProbe(srv.URL, "", nil, ""), 30*time.Second, nil)
		if err == nil || !strings.Contains(err.Error(), http.StatusText(c)+" to GET "+srv.URL+" 5 times in a row") ||
			!strings.Contains(err.Error(), "--expect-status "+strconv.Itoa(c)) || asked.Load() != finalAnswers {
			t.Errorf("a service answering %d: WaitReady = %v after %d requests; want the first %d answers said at once with --expect-status", c, err, asked.Load(), finalAnswers)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("a service answering %d: WaitReady took %v; want at once", c, took)
		}
	}
	code.Store(http.StatusNotFound)
	if err := WaitReady(t.Context(), ReadyProbe{URL: srv.URL}, 30*time.Second, nil); err == nil || !strings.Contains(err.Error(), "want a status that says it is ready (2xx or 3xx)") {
		t.Errorf("a health URL answering 404: WaitReady = %v; want it said at once", err)
	}
	p := loadProbe(srv.URL, "", nil, "")
	p.Expect = func(s int) bool { return s == http.StatusNotFound }
	if err := WaitReady(t.Context(), p, 300*time.Millisecond, nil); err != nil {
		t.Errorf("404 expected: WaitReady = %v", err)
	}
	// Failing now and then: four 500s, then 200.
	asked.Store(0)
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if asked.Add(1) <= finalAnswers-1 {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	defer flaky.Close()
	if err := WaitReady(t.Context(), loadProbe(flaky.URL, "", nil, ""), 10*time.Second, nil); err != nil {
		t.Errorf("a service failing %d requests, then answering: WaitReady = %v; want ready", finalAnswers-1, err)
	}
	// Starting: three 503s, then 200.
	asked.Store(0)
	starting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if asked.Add(1) <= 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer starting.Close()
	if err := WaitReady(t.Context(), loadProbe(starting.URL, "", nil, ""), 10*time.Second, nil); err != nil || asked.Load() != 4 {
		t.Errorf("a service turning from 503 to 200: WaitReady = %v after %d requests; want ready at the 4th", err, asked.Load())
	}
}

// silentAddr listens on a loopback port and never accepts: the kernel
// completes the connections, and nothing answers them.
func silentAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}

// TestReadySilentPort: a port that accepts and never answers, while the
// launched service listens on another, fails within 2 s of the
// connection, saying what perflab saw and where the service listens.
// Without a service known, the port may be the service's: the answer is
// waited for until the timeout, which says a connection went unanswered.
func TestReadySilentPort(t *testing.T) {
	addr, silent := labtest.FreeAddr(t), silentAddr(t)
	cmd, env := helperCmd(t, "serve", addr)
	p := launchT(t, LaunchConfig{Command: cmd, Env: env, Name: "silentport"})
	if err := WaitReady(t.Context(), ReadyProbe{URL: "http://" + addr + "/"}, 10*time.Second, p); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := WaitReady(t.Context(), loadProbe("http://"+silent+"/", "", nil, ""), 30*time.Second, p)
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), silent+" accepted the connection and sent no answer in 1s to GET") ||
		!strings.Contains(err.Error(), "the service listens on "+addr) {
		t.Errorf("WaitReady on a silent port = %v; want what perflab saw and where the service listens", err)
	}
	if took > 2*time.Second {
		t.Errorf("WaitReady on a silent port took %v; want within 2 s", took.Round(time.Millisecond))
	}
	err = WaitReady(t.Context(), ReadyProbe{URL: "http://" + silent + "/"}, 2*time.Second, nil)
	if err == nil || !strings.Contains(err.Error(), "not ready after 2s") || !strings.Contains(err.Error(), "connected, no answer in") {
		t.Errorf("WaitReady on a silent port, no service known = %v; want the timeout, saying the connection went unanswered", err)
	}
}

// TestReadyWaitsForTheService: a service that accepts connections on its
// own port before it can answer (a pre-fork server loading its workers),
// and one that starts listening only after a while (a JVM), are waited
// for: both are ready once they answer, past the silent port's 1 s.
func TestReadyWaitsForTheService(t *testing.T) {
	for _, mode := range []string{"serve-late", "serve-after"} {
		addr := labtest.FreeAddr(t)
		cmd, env := helperCmd(t, mode, "2500ms", addr)
		p := launchT(t, LaunchConfig{Command: cmd, Env: env, Name: mode})
		start := time.Now()
		if err := WaitReady(t.Context(), loadProbe("http://"+addr+"/", "", nil, ""), 20*time.Second, p); err != nil {
			t.Errorf("%s: WaitReady = %v; want ready once it answers", mode, err)
		}
		if took := time.Since(start); took < 2500*time.Millisecond {
			t.Errorf("%s: ready after %v, before the service could answer", mode, took)
		}
	}
}

// TestReadyNamesThePortTheServiceListensOn: a service that says it listens
// on another port than the URL's is refused once its listeners settle,
// within 2 s of its start, with the URL to give; one that listens
// elsewhere without saying so is waited for until the timeout (it may be
// a metrics port opened before the API's).
func TestReadyNamesThePortTheServiceListensOn(t *testing.T) {
	addr, other := labtest.FreeAddr(t), labtest.RefusedAddr(t)
	cmd, env := helperCmd(t, "serve", addr)
	start := time.Now()
	p := launchT(t, LaunchConfig{Command: cmd, Env: env, Name: "wrongport"})
	err := WaitReady(t.Context(), ReadyProbe{URL: "http://" + other + "/search"}, 30*time.Second, p)
	if err == nil || !strings.Contains(err.Error(), "listens on "+addr) || !strings.Contains(err.Error(), "give http://"+addr+"/search") {
		t.Errorf("WaitReady on the wrong port = %v; want the service's address and the URL to give", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("refused %v after the service started; want within 2 s", el.Round(time.Millisecond))
	}

	quiet := labtest.FreeAddr(t)
	cmd, env = helperCmd(t, "serve-quiet", quiet)
	p = launchT(t, LaunchConfig{Command: cmd, Env: env, Name: "quietport"})
	if err := WaitReady(t.Context(), ReadyProbe{URL: "http://" + quiet + "/"}, 10*time.Second, p); err != nil {
		t.Fatal(err)
	}
	err = WaitReady(t.Context(), ReadyProbe{URL: "http://" + other + "/"}, 3*time.Second, p)
	if err == nil || !strings.Contains(err.Error(), "not ready after") || !strings.Contains(err.Error(), "the service listens on") {
		t.Errorf("WaitReady beside a service that does not say where it listens = %v; want the timeout", err)
	}
}

// BenchmarkReadyLag measures what the readiness probe adds to a run: the
// time from a service's first listen to WaitReady's return, while the
// probe was polling a refused port. A timer stands in for the service's
// start-up, at a point between two probes.
func BenchmarkReadyLag(b *testing.B) {
	var lag time.Duration
	for b.Loop() {
		addr := labtest.FreeAddr(b)
		type started struct {
			at  time.Time
			srv *http.Server
		}
		up := make(chan started, 1)
		time.AfterFunc(37*time.Millisecond, func() {
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				b.Error(err)
				close(up)
				return
			}
			s := started{time.Now(), &http.Server{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})}}
			up <- s
			go s.srv.Serve(ln)
		})
		err := WaitReady(b.Context(), loadProbe("http://"+addr+"/", "", nil, ""), 10*time.Second, nil)
		done := time.Now()
		s, ok := <-up
		if err != nil || !ok {
			b.Fatal(err)
		}
		lag += done.Sub(s.at)
		s.srv.Close()
	}
	b.ReportMetric(float64(lag.Microseconds())/1000/float64(b.N), "lag-ms/op")
}

// BenchmarkReadyAnswering is WaitReady on a service that already answers:
// the least a run spends on the probe.
func BenchmarkReadyAnswering(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	for b.Loop() {
		if err := WaitReady(b.Context(), loadProbe(srv.URL, "", nil, ""), 10*time.Second, nil); err != nil {
			b.Fatal(err)
		}
	}
}
