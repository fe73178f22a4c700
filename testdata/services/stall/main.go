// Command stall answers GET / at once, except during a stall window of
// -stall (500ms) at the start of every -period (5s) since it started:
// requests arriving in the window wait until it ends, like a service
// pausing for a periodic lock, flush or GC. It is the tail-latency
// benchmark's target: about 10% of requests at a steady rate see up to
// 500ms. -mode=fixed never stalls.
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"

	"perflab/testdata/services/svc"
)

var period, stall time.Duration

func main() {
	os.Exit(svc.Run(svc.Service{
		Name: "stall",
		Flags: func(fs *flag.FlagSet) {
			fs.DurationVar(&period, "period", 5*time.Second, "stall once every `duration`")
			fs.DurationVar(&stall, "stall", 500*time.Millisecond, "length of each stall window")
		},
		Handler: handler,
	}, os.Args[1:], os.Stdout, os.Stderr))
}

func handler(buggy bool) (http.Handler, error) {
	if period <= 0 || stall < 0 || stall >= period {
		return nil, fmt.Errorf("-stall %v must be shorter than -period %v", stall, period)
	}
	start := time.Now()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if buggy {
			waitOutStall(time.Since(start))
		}
		w.Write([]byte("ok\n"))
	}), nil
}

// waitOutStall sleeps until the end of the current stall window, if the
// request arrived inside one.
//
// It is never inlined, so every profiler (perf too) names it.
//
//go:noinline
func waitOutStall(sinceStart time.Duration) {
	if phase := sinceStart % period; phase < stall {
		time.Sleep(stall - phase)
	}
}
