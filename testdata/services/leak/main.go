// Command leak serves GET /event and keeps a -record (1 KiB) copy of every
// request in a global slice that is never trimmed (main.remember): the live
// heap grows by about a record per request, the memory leak of the Go case
// study. -mode=fixed keeps the last 1000 records in a ring.
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"sync"

	"perflab/testdata/services/svc"
)

var recordSize int

// The heap profile samples one allocation per 512 KiB by default: the
// ~40 records it would sample of a 20 MB leak estimate the bytes retained
// per request within ±15% (one standard deviation). The acceptance test
// checks perflab's arithmetic, not that sampling noise, so this service
// samples every 16 KiB (~1,300 records, ±3%).
func init() { runtime.MemProfileRate = 16 << 10 }

func main() {
	os.Exit(svc.Run(svc.Service{
		Name:    "leak",
		Flags:   func(fs *flag.FlagSet) { fs.IntVar(&recordSize, "record", 1024, "bytes kept per request") },
		Handler: handler,
	}, os.Args[1:], os.Stdout, os.Stderr))
}

var (
	mu      sync.Mutex
	history [][]byte
	ring    [1000][]byte
	next    int
)

func handler(buggy bool) (http.Handler, error) {
	if recordSize < 1 || recordSize > 1<<20 {
		return nil, fmt.Errorf("-record %d: want 1 to 1048576 bytes", recordSize)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		if buggy {
			n = remember(r)
		} else {
			n = rememberLast(r)
		}
		fmt.Fprintln(w, n)
	}), nil
}

// remember keeps a copy of every request: it allocates the record and
// grows the slice.
//
//go:noinline
func remember(r *http.Request) int {
	b := make([]byte, recordSize)
	copy(b, r.URL.String())
	mu.Lock()
	defer mu.Unlock()
	history = append(history, b)
	return len(history)
}

//go:noinline
func rememberLast(r *http.Request) int {
	b := make([]byte, recordSize)
	copy(b, r.URL.String())
	mu.Lock()
	defer mu.Unlock()
	ring[next%len(ring)] = b
	next++
	return next
}
