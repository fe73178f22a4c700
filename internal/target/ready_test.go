package target

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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
