// Package pprofmux serves net/http/pprof on a mux of its own, so a service's
// profiling endpoints live on a separate listener and are never reachable
// through its API (net/http/pprof's init registers on http.DefaultServeMux).
// The demo service and the test services use it.
package pprofmux

import (
	"net/http"
	"net/http/pprof"
)

// New returns a mux with the net/http/pprof handlers under /debug/pprof/.
func New() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
