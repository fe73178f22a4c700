package cli

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestExitCodeTable runs perflab in-process for each row of the exit-code
// table (README.md, docs/runs.md): one case (or a few, for bad input) per
// row, each checking the code and what the one line or the output says.
func TestExitCodeTable(t *testing.T) {
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer ok.Close()
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	var n atomic.Int64
	halfFail := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%2 == 0 {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	defer halfFail.Close()
	silent := silentServer(t)
	builds := twoBuilds(t) // runs named old (1.0 ms/request) and new (0.7)
	dir := t.TempDir()
	self := strconv.Itoa(os.Getpid())
	for _, tc := range []struct {
		row  ExitCode
		name string
		args []string
		want string // in stdout or stderr
	}{
		{ExitOK, "a load that completes", []string{"load", "-n", "20", "-c", "2", "--quiet", ok.URL}, "Status code distribution:"},
		{ExitOK, "expected 404s", []string{"load", "-n", "20", "-c", "2", "--quiet", "--expect-status", "404", notFound.URL}, "Status code distribution:"},
		{ExitRegression, "--fail-on crossed", []string{"compare", "--dir", builds, "--fail-on", "cpu_per_request>+5%", "new", "old"}, "regressed significantly"},
		{ExitUsage, "NaN", []string{"load", "-q", "NaN", ok.URL}, "--qps NaN"},
		{ExitUsage, "empty --slo on load", []string{"load", "--slo", "", ok.URL}, `--slo "": empty`},
		{ExitUsage, "empty --slo on run", []string{"run", "--slo", "", ok.URL, "--", "true"}, `--slo "": empty`},
		{ExitUsage, "--pid of perflab itself", []string{"run", "--pid", self, ok.URL}, "is perflab itself"},
		{ExitUsage, "--pid of perflab's parent", []string{"profile", "--pid", strconv.Itoa(os.Getppid())}, "ancestor of perflab"},
		{ExitUsage, "a bad --expect-status", []string{"load", "--expect-status", "99", ok.URL}, "--expect-status 99"},
		{ExitUsage, "an unknown run", []string{"runs", "show", "nope", "--dir", dir}, "no run matches"},
		{ExitFailed, "no request succeeded (all 404)", []string{"load", "-n", "20", "-c", "2", "--quiet", notFound.URL}, "no request succeeded: all 20 failed (20 status-4xx)"},
		{ExitFailed, "no request finished", []string{"load", "-d", "300ms", "-c", "2", "--quiet", silent}, "no request finished"},
		{ExitSLO, "--slo missed", []string{"load", "-n", "40", "-c", "2", "--quiet", "--slo", "errors<1%", halfFail.URL}, "missed its SLO"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errb := perflab(t, tc.args...)
			if code != int(tc.row) || !strings.Contains(out+errb, tc.want) {
				t.Errorf("perflab %s: exit %d; want %d and %q\n%s%s", strings.Join(tc.args, " "), code, tc.row, tc.want, out, errb)
			}
			if tc.row == ExitUsage && strings.Count(strings.TrimSpace(errb), "\n") != 0 {
				t.Errorf("bad input takes more than one line:\n%s", errb)
			}
		})
	}
	t.Run("interrupted", func(t *testing.T) {
		var out, errb strings.Builder
		env := Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Executable: os.Args[0]}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		if code := Main(ctx, []string{"load", "-d", "30s", "-c", "2", "--quiet", ok.URL}, env); code != int(ExitInterrupted) || !strings.Contains(out.String(), "requests") {
			t.Errorf("load interrupted: exit %d; want 130 and what completed printed\n%s%s", code, out.String(), errb.String())
		}
	})
}

// silentServer accepts connections and reads requests without ever
// answering; it returns its URL.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			go bufio.NewReader(c).WriteTo(discard{})
		}
	}()
	return "http://" + ln.Addr().String() + "/"
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
