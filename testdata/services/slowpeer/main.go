// Command slowpeer is the slow downstream of the downstream and pyslow test
// services: every request waits -delay (20ms) before its answer, like a
// service that is slow for reasons of its own. It runs as a process of its
// own, outside the budget of the service under test.
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"

	"perflab/testdata/services/svc"
)

var delay time.Duration

func main() {
	os.Exit(svc.Run(svc.Service{
		Name: "slowpeer",
		Flags: func(fs *flag.FlagSet) {
			fs.DurationVar(&delay, "delay", 20*time.Millisecond, "answer each request after `duration`")
		},
		Handler: func(bool) (http.Handler, error) {
			if delay < 0 {
				return nil, fmt.Errorf("-delay %v: must be >= 0", delay)
			}
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(delay)
				w.Write([]byte("42\n"))
			}), nil
		},
	}, os.Args[1:], os.Stdout, os.Stderr))
}
