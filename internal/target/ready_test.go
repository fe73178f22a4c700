package target

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"perflab/internal/labtest"
)

// TestReadyWantsAnExpectedStatus: a service answering 503 (starting) or
// 404 (the wrong URL) to everything is not ready; one that turns to 200 is
// ready then; an expected status given by the caller is accepted.
func TestReadyWantsAnExpectedStatus(t *testing.T) {
	var code atomic.Int64
	code.Store(http.StatusServiceUnavailable)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(int(code.Load())) }))
	defer srv.Close()
	for _, c := range []int{http.StatusServiceUnavailable, http.StatusNotFound} {
		code.Store(int64(c))
		err := WaitReady(t.Context(), srv.URL, 300*time.Millisecond, nil, nil)
		if err == nil || !strings.Contains(err.Error(), http.StatusText(c)) || !strings.Contains(err.Error(), "--expect-status") {
			t.Errorf("a service answering %d: WaitReady = %v; want not ready, naming the status", c, err)
		}
	}
	if err := WaitReady(t.Context(), srv.URL, 300*time.Millisecond, nil, func(s int) bool { return s == http.StatusNotFound }); err != nil {
		t.Errorf("404 expected: WaitReady = %v", err)
	}
	code.Store(http.StatusServiceUnavailable)
	time.AfterFunc(200*time.Millisecond, func() { code.Store(http.StatusOK) })
	if err := WaitReady(t.Context(), srv.URL, 10*time.Second, nil, nil); err != nil {
		t.Errorf("a service turning from 503 to 200: WaitReady = %v", err)
	}
}

// TestReadyNamesThePortTheServiceListensOn: a service that says it listens
// on another port than the URL's is refused once its listeners settle,
// long before the timeout, with the URL to give; one that listens
// elsewhere without saying so is waited for until the timeout (it may be
// a metrics port opened before the API's).
func TestReadyNamesThePortTheServiceListensOn(t *testing.T) {
	addr, other := labtest.FreeAddr(t), labtest.RefusedAddr(t)
	cmd, env := helperCmd(t, "serve", addr)
	p := launchT(t, LaunchConfig{Command: cmd, Env: env, Name: "wrongport"})
	start := time.Now()
	err := WaitReady(t.Context(), "http://"+other+"/search", 30*time.Second, p, nil)
	if err == nil || !strings.Contains(err.Error(), "listens on "+addr) || !strings.Contains(err.Error(), "give http://"+addr+"/search") {
		t.Errorf("WaitReady on the wrong port = %v; want the service's address and the URL to give", err)
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("refused after %v; want long before the 30 s timeout", el)
	}

	quiet := labtest.FreeAddr(t)
	cmd, env = helperCmd(t, "serve-quiet", quiet)
	p = launchT(t, LaunchConfig{Command: cmd, Env: env, Name: "quietport"})
	if err := WaitReady(t.Context(), "http://"+quiet+"/", 10*time.Second, p, nil); err != nil {
		t.Fatal(err)
	}
	err = WaitReady(t.Context(), "http://"+other+"/", 3*time.Second, p, nil)
	if err == nil || !strings.Contains(err.Error(), "not ready after") || !strings.Contains(err.Error(), "the service listens on") {
		t.Errorf("WaitReady beside a service that does not say where it listens = %v; want the timeout", err)
	}
}
