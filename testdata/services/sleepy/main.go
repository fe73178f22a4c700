// Command sleepy serves GET / after main.throttle sleeps -sleep (5ms) on
// the request path, like a rate limiter or retry backoff left in a
// handler. -mode=fixed does not sleep. At exit it prints how long the
// sleeps took ("sleeps: N waits, mean X ms": a timer fires late on a busy
// machine).
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"perflab/testdata/services/svc"
)

var (
	sleep  time.Duration
	sleeps svc.Stopwatch // how long throttle really sleeps
)

func main() {
	os.Exit(svc.Run(svc.Service{
		Name: "sleepy",
		Flags: func(fs *flag.FlagSet) {
			fs.DurationVar(&sleep, "sleep", 5*time.Millisecond, "sleep this long per request in buggy mode")
		},
		Report: func(w io.Writer) { sleeps.Report(w, "sleeps") },
		Handler: func(buggy bool) (http.Handler, error) {
			if sleep < 0 {
				return nil, fmt.Errorf("-sleep %v: must be >= 0", sleep)
			}
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if buggy {
					throttle()
				}
				w.Write([]byte("ok\n"))
			}), nil
		},
	}, os.Args[1:], os.Stdout, os.Stderr))
}

// throttle waits before answering.
//
//go:noinline
func throttle() {
	start := time.Now()
	time.Sleep(sleep)
	sleeps.Since(start)
}
