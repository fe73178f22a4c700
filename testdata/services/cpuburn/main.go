// Command cpuburn serves GET /burn?us=N: the handler spins on-CPU until
// its thread has used N microseconds of CPU time (CLOCK_THREAD_CPUTIME_ID),
// so a request's cost is known exactly and perflab's "CPU ms per request"
// can be checked against it. us defaults to 1000 and is capped at 1s.
// The mode flag has no effect.
package main

import (
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"perflab/testdata/services/svc"
)

// maxBurn caps one request's burn.
const maxBurn = time.Second

func main() {
	os.Exit(svc.Run(svc.Service{Name: "cpuburn", Handler: handler}, os.Args[1:], os.Stdout, os.Stderr))
}

func handler(bool) (http.Handler, error) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /burn", func(w http.ResponseWriter, r *http.Request) {
		us := 1000
		if s := r.URL.Query().Get("us"); s != "" {
			var err error
			if us, err = strconv.Atoi(s); err != nil || us < 0 || time.Duration(us)*time.Microsecond > maxBurn {
				http.Error(w, fmt.Sprintf("us=%q: want an integer 0..%d", s, maxBurn.Microseconds()), http.StatusBadRequest)
				return
			}
		}
		used, err := burn(time.Duration(us) * time.Microsecond)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprintf(w, "burned %dus\n", used.Microseconds())
	})
	return mux, nil
}

// burn spins until the calling thread has used d of CPU time. The
// goroutine is locked to its thread so the thread clock is its own.
func burn(d time.Duration) (time.Duration, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start, err := threadCPU()
	if err != nil {
		return 0, err
	}
	x := uint64(1)
	for {
		for range 1000 { // cheap work between clock reads
			x = x*6364136223846793005 + 1442695040888963407
		}
		now, err := threadCPU()
		if err != nil {
			return 0, err
		}
		if now-start >= d {
			sink = x
			return now - start, nil
		}
	}
}

var sink uint64

func threadCPU() (time.Duration, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, fmt.Errorf("reading thread CPU clock: %w", err)
	}
	return time.Duration(ts.Nano()), nil
}
