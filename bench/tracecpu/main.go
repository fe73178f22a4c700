// Command tracecpu measures what Go's execution tracer costs a CPU-bound
// HTTP handler, as CPU time per request: the handler of the tolower test
// service (lowercasing 5000 names per search) served in-process to
// -c concurrent clients, in rounds of -round, alternately with and without
// runtime/trace writing to a buffer, -rounds times each. CPU time comes from
// getrusage, so the figure holds on a busy machine where throughput does
// not; it prints the medians and the change. perflab's default traces a
// slice of each window (1-2 s), so a window's throughput loses this change
// times the share of the window traced.
//
//	go run ./bench/tracecpu [-rounds 9] [-round 2s] [-c 8]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/trace"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	rounds := flag.Int("rounds", 9, "rounds of each mode")
	round := flag.Duration("round", 2*time.Second, "length of a round")
	c := flag.Int("c", 8, "concurrent clients")
	flag.Parse()
	names := make([]string, 5000)
	for i := range names {
		names[i] = fmt.Sprintf("Item Number %d Of The Catalogue", i)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, n := r.URL.Query().Get("q"), 0
		for _, s := range names {
			if strings.Contains(strings.ToLower(s), q) {
				n++
			}
		}
		fmt.Fprintln(w, n)
	}))
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *c}}
	var per [2][]float64 // µs of CPU per request, off and on
	for i := 0; i < 2**rounds; i++ {
		on := i%2 == 1
		var buf bytes.Buffer
		if on {
			if err := trace.Start(&buf); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		cpu0 := cpuTime()
		n := load(client, srv.URL+"/search?q=number+7", *c, *round)
		cpu := cpuTime() - cpu0
		if on {
			trace.Stop()
		}
		per[i%2] = append(per[i%2], float64(cpu.Microseconds())/float64(n))
	}
	off, on := median(per[0]), median(per[1])
	fmt.Printf("CPU per request: %.1f µs untraced, %.1f µs traced: %+.1f%% (medians of %d rounds of %s, %d clients)\n",
		off, on, 100*(on-off)/off, *rounds, *round, *c)
}

// load runs c clients for d and returns the requests completed.
func load(client *http.Client, url string, c int, d time.Duration) int64 {
	var n atomic.Int64
	var wg sync.WaitGroup
	end := time.Now().Add(d)
	for range c {
		wg.Go(func() {
			for time.Now().Before(end) {
				resp, err := client.Get(url)
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body) // a benchmark client: the count is what matters
				resp.Body.Close()
				n.Add(1)
			}
		})
	}
	wg.Wait()
	return n.Load()
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru) // cannot fail for RUSAGE_SELF
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
