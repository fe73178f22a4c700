// Command deadlock serves GET /put?key=K, which records K in a map under
// one mutex (main.(*store).Put), and GET /healthz, which takes no lock.
// In buggy mode every -every (20th) put also logs the store's size
// through main.(*store).Len, which takes the same mutex again: the
// goroutine deadlocks on itself while it holds the lock, and every put
// after it waits in sync.(*Mutex).Lock in Put for ever. The service stops
// answering /put while /healthz and pprof still answer: the hung service
// of a goroutine dump. -mode=fixed reads the size under the lock it holds.
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"sync"

	"perflab/testdata/services/svc"
)

var every int

func main() {
	os.Exit(svc.Run(svc.Service{
		Name: "deadlock",
		Flags: func(fs *flag.FlagSet) {
			fs.IntVar(&every, "every", 20, "log the store's size every `N` puts (buggy: deadlocks there)")
		},
		Handler: handler,
	}, os.Args[1:], os.Stdout, os.Stderr))
}

func handler(buggy bool) (http.Handler, error) {
	if every < 1 {
		return nil, fmt.Errorf("-every %d: must be >= 1", every)
	}
	s := &store{m: map[string]int{}, buggy: buggy}
	mux := http.NewServeMux()
	mux.HandleFunc("/put", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, s.Put(r.URL.Query().Get("key")))
	})
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	return mux, nil
}

type store struct {
	mu    sync.Mutex
	m     map[string]int
	puts  int
	buggy bool
}

// Put counts key and returns how many puts there were.
//
//go:noinline
func (s *store) Put(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key]++
	s.puts++
	if s.puts%every == 0 {
		size := len(s.m)
		if s.buggy {
			size = s.Len() // takes s.mu again: never returns
		}
		fmt.Fprintf(os.Stderr, "store: %d keys after %d puts\n", size, s.puts)
	}
	return s.puts
}

// Len is the number of keys.
//
//go:noinline
func (s *store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}
