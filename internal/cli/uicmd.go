package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"perflab/internal/store"
	"perflab/internal/ui"
)

func newUICmd(env Env) *cobra.Command {
	var dir, addr string
	var sourceDirs []string
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "Browse runs, reports, profiles and comparisons in a local web UI",
		Long: `Serve a web UI of the runs in --dir on --addr (loopback by default) until
Ctrl-C: every run with its rate, p99, CPU per request, status and top finding;
its report; its profiles in pprof's own interactive views (flame graph, top,
graph, source, peek — the graph needs Graphviz's dot); and comparisons of two
runs or groups (IDs, names, globs or lists, as for perflab compare) with the
differential flame graph. The UI reads only inside --dir (links out of it are
refused) and shows source files only from the --source-dir directories. On
loopback it answers local clients only (403 to others and to a Host header
that is not localhost or a loopback address); it has no authentication, so
a non-loopback --addr is served to anyone who can reach it, with a warning.`,
		Example: `  perflab ui
  perflab ui --dir ./perflab-runs --addr 127.0.0.1:8090
  perflab ui --source-dir ~/src/myservice   # pprof's source view shows these files`,
		Args: positional(),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := openStore(dir)
			if err != nil {
				return err
			}
			if _, err := os.Stat(dir); err != nil {
				return usageErr("--dir %s: %v (no runs there yet: run perflab run first)", dir, err)
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return usageErr("--addr %s: %v", addr, err)
			}
			local := loopbackListener(ln.Addr())
			srv := ui.New(st, ui.Options{LocalOnly: local, SourceDirs: sourceDirs})
			runs, err := srv.Runs() // reads the runs once, so the first page is quick
			if err != nil {
				ln.Close()
				return failed(fmt.Errorf("--dir %s: %w", dir, err))
			}
			if !local {
				fmt.Fprintf(env.Stderr, "perflab ui: warning: listening on %s, not loopback: anyone who can reach it sees the runs, and the UI has no authentication\n", ln.Addr())
			}
			fmt.Fprintf(env.Stderr, "perflab ui: %d runs in %s on http://%s/ (Ctrl-C stops)\n", runs, dir, ln.Addr())
			return serveUntilDone(cmd.Context(), ln, srv)
		},
	}
	v := flagSet{cmd.Flags()}
	v.checked(&dir, "dir", "", store.DefaultRootHelp, "directory", nonEmpty, "`directory` that keeps the runs")
	v.checked(&addr, "addr", "", "127.0.0.1:8080", "host:port", checkListenAddr, "listen on `host:port` (keep it on loopback: the UI has no authentication)")
	v.list(&sourceDirs, "source-dir", "", "directory", checkDir, "let pprof's source view show files under this `directory` (repeatable; default none)")
	return cmd
}

// loopbackListener says whether a listener's address is on loopback only.
func loopbackListener(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// checkDir accepts an existing directory.
func checkDir(s string) error {
	st, err := os.Stat(s)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return errors.New("not a directory")
	}
	return nil
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
