package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"perflab/internal/store"
	"perflab/internal/ui"
)

func newUICmd(env Env) *cobra.Command {
	var dir, addr string
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "Browse runs, reports, profiles and comparisons in a local web UI",
		Long: `Serve a web UI of the runs in --dir on --addr (loopback by default) until
Ctrl-C: every run with its rate, p99, CPU per request, status and top finding;
its report; its profiles in pprof's own interactive views (flame graph, top,
graph, source, peek — the graph needs Graphviz's dot); and comparisons of two
runs or groups (IDs, names, globs or lists, as for perflab compare) with the
differential flame graph. The UI reads only inside --dir.`,
		Example: `  perflab ui
  perflab ui --dir ./perflab-runs --addr 127.0.0.1:8090`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, _, err := net.SplitHostPort(addr); err != nil {
				return usageErr("--addr %q: want HOST:PORT, e.g. 127.0.0.1:8080 (port 0 picks a free one)", addr)
			}
			srv := ui.New(store.Store{Root: dir})
			runs, err := srv.Runs() // reads the runs once, so the first page is quick
			if err != nil {
				return failed(fmt.Errorf("--dir %s: %w", dir, err))
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return failed(fmt.Errorf("--addr %s: %w", addr, err))
			}
			fmt.Fprintf(env.Stderr, "perflab ui: %d runs in %s on http://%s/ (Ctrl-C stops)\n", runs, dir, ln.Addr())
			return serveUntilDone(cmd.Context(), ln, srv)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", store.DefaultRoot, "`directory` that keeps the runs")
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "listen on `host:port` (keep it on loopback: the UI has no authentication)")
	return cmd
}

// serveUntilDone serves h on ln until ctx ends, then shuts down gracefully.
func serveUntilDone(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return failed(err)
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return failed(err)
		}
		return nil
	}
}
