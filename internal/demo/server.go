package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"perflab/internal/pprofmux"
)

// Config configures a demo Server.
type Config struct {
	// Addr is the API listen address; "127.0.0.1:0" when empty.
	Addr string
	// PprofAddr is the net/http/pprof listen address; "127.0.0.1:0" when empty.
	PprofAddr string
	// Fixed removes the planted costs (the "fixed build").
	Fixed bool
	// Log receives serve errors; io.Discard when nil.
	Log io.Writer
}

// Server is a running demo service: the API and its pprof listener.
type Server struct {
	api, pprof     *http.Server
	apiLn, pprofLn net.Listener
	serveErr       chan error
}

// shutdownTimeout bounds how long Close waits for in-flight requests.
const shutdownTimeout = 5 * time.Second

// Start listens on cfg.Addr and cfg.PprofAddr and serves in the background.
func Start(cfg Config) (*Server, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	apiLn, err := net.Listen("tcp", orLoopback(cfg.Addr))
	if err != nil {
		return nil, fmt.Errorf("starting demo service: listening on -addr %q: %w", cfg.Addr, err)
	}
	pprofLn, err := net.Listen("tcp", orLoopback(cfg.PprofAddr))
	if err != nil {
		apiLn.Close()
		return nil, fmt.Errorf("starting demo service: listening on -pprof-addr %q: %w", cfg.PprofAddr, err)
	}
	s := &Server{apiLn: apiLn, pprofLn: pprofLn, serveErr: make(chan error, 2)}
	s.api = &http.Server{Handler: newApp(cfg.Fixed).routes(), ReadHeaderTimeout: 10 * time.Second}
	s.pprof = &http.Server{Handler: pprofmux.New(), ReadHeaderTimeout: 10 * time.Second}
	go s.serve(s.api, apiLn, cfg.Log)
	go s.serve(s.pprof, pprofLn, cfg.Log)
	return s, nil
}

func orLoopback(addr string) string {
	if addr == "" {
		return "127.0.0.1:0"
	}
	return addr
}

func (s *Server) serve(hs *http.Server, ln net.Listener, log io.Writer) {
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(log, "demo: serving %s: %v\n", ln.Addr(), err)
		s.serveErr <- err
	}
}

// URL is the API's base URL, e.g. "http://127.0.0.1:41234".
func (s *Server) URL() string { return "http://" + s.apiLn.Addr().String() }

// PprofURL is the base URL of the pprof listener; profiles are under
// /debug/pprof/.
func (s *Server) PprofURL() string { return "http://" + s.pprofLn.Addr().String() }

// Err delivers the first error that stopped a listener before Close.
func (s *Server) Err() <-chan error { return s.serveErr }

// Close shuts both listeners down gracefully, waiting up to 5s for
// in-flight requests.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	return errors.Join(s.api.Shutdown(ctx), s.pprof.Shutdown(ctx))
}
