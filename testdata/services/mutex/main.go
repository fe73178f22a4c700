// Command mutex serves GET /count, holding one global mutex around -hold
// (2ms) of work in main.(*counter).add: with 8 concurrent clients each
// request waits for the others' holds (about 7 × 2ms), the lock contention
// of a shared cache or counter. The work is a busy loop timed by the wall
// clock, so a hold lasts 2ms however busy the machine is. -mode=fixed does
// the work outside the lock and locks only the increment.
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"perflab/testdata/services/svc"
)

var (
	hold  time.Duration
	waits svc.Stopwatch // the time add waits for the lock
)

func main() {
	os.Exit(svc.Run(svc.Service{
		Name: "mutex",
		Flags: func(fs *flag.FlagSet) {
			fs.DurationVar(&hold, "hold", 2*time.Millisecond, "work done per request, under the lock in buggy mode")
		},
		Handler: handler,
		Report:  func(w io.Writer) { waits.Report(w, "lock waits") },
	}, os.Args[1:], os.Stdout, os.Stderr))
}

type counter struct {
	mu sync.Mutex
	n  int64
}

func handler(buggy bool) (http.Handler, error) {
	if hold < 0 {
		return nil, fmt.Errorf("-hold %v: must be >= 0", hold)
	}
	c := &counter{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int64
		if buggy {
			n = c.add()
		} else {
			n = c.addLean()
		}
		fmt.Fprintln(w, n)
	}), nil
}

// add works under the lock.
//
//go:noinline
func (c *counter) add() int64 {
	start := time.Now()
	c.mu.Lock()
	waits.Since(start)
	defer c.mu.Unlock()
	work(hold)
	c.n++
	return c.n
}

//go:noinline
func (c *counter) addLean() int64 {
	work(hold)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return c.n
}

// work spins for d of wall-clock time.
//
//go:noinline
func work(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}
