package lab

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/pprofmux"
	"perflab/internal/runfmt"
)

// runProxyHelper makes the test binary a TCP proxy, as docker-proxy is for
// a container's published port: PERFLAB_TEST_PROXY=FROM>TO forwards every
// connection to FROM on to TO.
func runProxyHelper() bool {
	from, to, ok := strings.Cut(os.Getenv("PERFLAB_TEST_PROXY"), ">")
	if !ok {
		return false
	}
	ln, err := net.Listen("tcp", from)
	if err != nil {
		return true
	}
	for {
		in, err := ln.Accept()
		if err != nil {
			return true
		}
		go func() {
			defer in.Close()
			out, err := net.Dial("tcp", to)
			if err != nil {
				return
			}
			defer out.Close()
			go func() { _, _ = io.Copy(out, in) }()
			_, _ = io.Copy(in, out)
		}()
	}
}

// servePprof serves net/http/pprof on addr for a test service given
// PERFLAB_TEST_PPROF=addr.
func servePprof() {
	if addr := os.Getenv("PERFLAB_TEST_PPROF"); addr != "" {
		go func() { _ = http.ListenAndServe(addr, pprofmux.New()) }()
	}
}

// TestPprofThroughAProxy: the service's pprof port is reached through
// another process (docker-proxy for a container, a sidecar), so the
// socket's owner is not the service; the command line the endpoint reports
// is the service's and not the proxy's, and perflab profiles it.
func TestPprofThroughAProxy(t *testing.T) {
	addr, pp, front := labtest.FreeAddr(t), labtest.FreeAddr(t), labtest.FreeAddr(t)
	exe, _ := os.Executable()
	proxy := exec.Command(exe, "proxy")
	proxy.Env = append(os.Environ(), "PERFLAB_TEST_PROXY="+front+">"+pp)
	if err := proxy.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Process.Kill(); _ = proxy.Wait() })
	labtest.Eventually(t, 10*time.Second, "the proxy to listen on "+front, func() bool {
		c, err := net.Dial("tcp", front)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	cfg := testConfig(t, addr, "PERFLAB_TEST_PPROF="+pp)
	cfg.Profiler, cfg.Pprof = ProfilerAuto, "http://"+front
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run through the proxy: %v", err)
	}
	r := readRun(t, res)
	var fromPprof bool
	for _, p := range r.Profiles {
		fromPprof = fromPprof || p.Source == runfmt.SourceProfilers(runfmt.ProfilerPprof)
	}
	if !fromPprof {
		t.Errorf("no profile taken through the proxy: profiles %+v, warnings %q", r.Profiles, r.Warnings)
	}
}
