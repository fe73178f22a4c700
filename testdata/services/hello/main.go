// Command hello is a minimal net/http hello world for load-generator
// benchmarks: GET / answers "hello, world". -work D makes each request
// spin on a CPU for D first (a service of a known cost per request, for
// benchmarks of what perflab's measures cost a service).
package main

import (
	"flag"
	"net/http"
	"os"
	"time"

	"perflab/testdata/services/svc"
)

func main() {
	var work *time.Duration
	os.Exit(svc.Run(svc.Service{Name: "hello",
		Flags: func(fs *flag.FlagSet) {
			work = fs.Duration("work", 0, "spin on a CPU for `duration` in each request")
		},
		Handler: func(bool) (http.Handler, error) {
			return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if *work > 0 {
					spin(*work)
				}
				w.Write([]byte("hello, world\n"))
			}), nil
		}}, os.Args[1:], os.Stdout, os.Stderr))
}

// spin keeps the CPU busy for d of wall time (the service is alone on its
// CPU in the benchmarks that ask for it).
func spin(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}
