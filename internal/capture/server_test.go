package capture

import (
	"context"
	"crypto/sha256"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"perflab/internal/pprofmux"
)

// pprofMux serves net/http/pprof's handlers, as a service mounting them on
// its own mux does, plus /burn, a handler that costs CPU in burnCPU.
func pprofMux() *http.ServeMux {
	mux := pprofmux.New()
	mux.HandleFunc("/burn", func(w http.ResponseWriter, r *http.Request) {
		sum := burnCPU(2 * time.Millisecond)
		w.Write(sum[:4])
	})
	return mux
}

//go:noinline
func burnCPU(d time.Duration) [32]byte {
	var s [32]byte
	for end := time.Now().Add(d); time.Now().Before(end); {
		s = sha256.Sum256(s[:])
	}
	return s
}

// startLoad requests url/burn from two workers until stop is called, at most
// 20000 requests and 10 seconds in all.
func startLoad(t *testing.T, url string) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	left := 20000
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				mu.Lock()
				left--
				more := left >= 0
				mu.Unlock()
				if !more {
					return
				}
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/burn", nil)
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}
		}()
	}
	stop = func() { cancel(); wg.Wait() }
	t.Cleanup(stop)
	return stop
}

func newPprofServer(t *testing.T) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(pprofMux())
	t.Cleanup(ts.Close)
	return ts
}
