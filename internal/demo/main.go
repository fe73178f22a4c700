package demo

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"syscall"
)

// Main runs the demo service as a process until SIGTERM or SIGINT, then
// shuts down gracefully. It is what `perflab demo-service` calls. Flags:
// -addr, -pprof-addr, -fixed. It prints "listening on URL" and
// "pprof on URL/debug/pprof/" to stdout once both listeners are up, and
// returns the exit code: 0 after a clean shutdown, 1 on a serve error,
// 2 on bad flags.
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo-service", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen on `host:port` for the API")
	pprofAddr := fs.String("pprof-addr", "127.0.0.1:6060", "serve net/http/pprof on `host:port`")
	fixed := fs.Bool("fixed", false, "remove the planted costs (the fixed build)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "demo-service: unexpected arguments %q (flags: -addr, -pprof-addr, -fixed)\n", fs.Args())
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	s, err := Start(Config{Addr: *addr, PprofAddr: *pprofAddr, Fixed: *fixed, Log: stderr})
	if err != nil {
		fmt.Fprintf(stderr, "demo-service: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "listening on %s\n", s.URL())
	fmt.Fprintf(stdout, "pprof on %s/debug/pprof/\n", s.PprofURL())
	code := 0
	select {
	case <-ctx.Done():
	case err := <-s.Err():
		fmt.Fprintf(stderr, "demo-service: %v\n", err)
		code = 1
	}
	if err := s.Close(); err != nil {
		fmt.Fprintf(stderr, "demo-service: shutting down: %v\n", err)
		code = 1
	}
	return code
}
