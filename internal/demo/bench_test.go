package demo

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Each benchmark serves one endpoint in-process in both builds and reports
// the process CPU per request (including GC work on other threads), which
// is what perflab reports as "CPU ms per request".
//
//	go test -run=^$ -bench=. ./internal/demo
func BenchmarkSearch(b *testing.B) { benchEndpoint(b, "GET", "/search?q=steel", "") }
func BenchmarkRender(b *testing.B) { benchEndpoint(b, "GET", "/render", "") }
func BenchmarkItem(b *testing.B)   { benchEndpoint(b, "GET", "/api/item?id=7", "") }
func BenchmarkIngest(b *testing.B) { benchEndpoint(b, "GET", "/ingest", "") }
func BenchmarkMixed(b *testing.B)  { benchEndpoint(b, "GET", "/", "") }

func benchEndpoint(b *testing.B, method, target, body string) {
	for _, mode := range []struct {
		name  string
		fixed bool
	}{{"planted", false}, {"fixed", true}} {
		b.Run("build="+mode.name, func(b *testing.B) {
			h := newApp(mode.fixed).routes()
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(method, target, strings.NewReader(body)))
				if rec.Code != http.StatusOK {
					b.Fatalf("%s %s: status %d", method, target, rec.Code)
				}
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/req")
		})
	}
}

// processCPU is the user+system CPU time of this process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
