// Package svc is the shared harness of perflab's test services: the
// -addr, -pprof-addr and -mode flags, net/http/pprof on its own listener,
// the "listening on" lines the tests read, and a graceful stop on
// SIGTERM or SIGINT.
package svc

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"perflab/internal/pprofmux"
)

// Service describes one test service.
type Service struct {
	// Name is the program name used in messages.
	Name string
	// Flags registers extra flags (optional).
	Flags func(fs *flag.FlagSet)
	// Handler builds the API once flags are parsed; buggy is true for
	// -mode=buggy (the planted cost) and false for -mode=fixed.
	Handler func(buggy bool) (http.Handler, error)
	// Report, if set, writes what the service measured of its planted
	// cost to stdout after it stops (see Stopwatch).
	Report func(w io.Writer)
}

// Run parses args, serves until SIGTERM or SIGINT and returns the exit
// code. It prints "listening on http://HOST:PORT" and then
// "pprof on http://HOST:PORT/debug/pprof/" to stdout once both listen.
func Run(s Service, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(s.Name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "serve the API on `host:port` (port 0 picks a free one)")
	pprofAddr := fs.String("pprof-addr", envOr("PPROF_ADDR", "127.0.0.1:6060"), "serve net/http/pprof on `host:port` (default $PPROF_ADDR)")
	mode := fs.String("mode", "buggy", "`buggy` (planted cost) or fixed")
	if s.Flags != nil {
		s.Flags(fs)
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *mode != "buggy" && *mode != "fixed" {
		fmt.Fprintf(stderr, "%s: -mode %q: want buggy or fixed\n", s.Name, *mode)
		return 2
	}
	h, err := s.Handler(*mode == "buggy")
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", s.Name, err)
		return 1
	}
	err = serve(s.Name, *addr, *pprofAddr, h, stdout)
	if s.Report != nil {
		s.Report(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", s.Name, err)
		return 1
	}
	return 0
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func serve(name, addr, pprofAddr string, h http.Handler, stdout io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	apiLn, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on -addr %s: %w", addr, err)
	}
	pprofLn, err := net.Listen("tcp", pprofAddr)
	if err != nil {
		apiLn.Close()
		return fmt.Errorf("listening on -pprof-addr %s: %w", pprofAddr, err)
	}
	api := &http.Server{Handler: h}
	prof := &http.Server{Handler: pprofmux.New()}
	errc := make(chan error, 2)
	go func() { errc <- api.Serve(apiLn) }()
	go func() { errc <- prof.Serve(pprofLn) }()
	fmt.Fprintf(stdout, "listening on http://%s\n", apiLn.Addr())
	fmt.Fprintf(stdout, "pprof on http://%s/debug/pprof/\n", pprofLn.Addr())
	select {
	case <-ctx.Done():
		err = nil
	case err = <-errc:
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if serr := errors.Join(api.Shutdown(sctx), prof.Shutdown(sctx)); err == nil {
		err = serr
	}
	return err
}
