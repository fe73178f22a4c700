package cli

import (
	"bytes"
	"context"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// stampedLines keeps what perflab writes to stderr as lines, each with
// the time it was written: the run's own timings of its phases.
type stampedLines struct {
	mu    sync.Mutex
	part  []byte
	lines []string
	at    []time.Time
}

func (s *stampedLines) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	s.part = append(s.part, p...)
	for {
		i := bytes.IndexByte(s.part, '\n')
		if i < 0 {
			return len(p), nil
		}
		s.lines = append(s.lines, string(s.part[:i]))
		s.at = append(s.at, now)
		s.part = s.part[i+1:]
	}
}

// phase is the time from the line that starts with from to the next line,
// and that line ("" and 0 when there is none).
func (s *stampedLines) phase(from string) (time.Duration, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, l := range s.lines {
		if strings.HasPrefix(l, from) && i+1 < len(s.lines) {
			return s.at[i+1].Sub(s.at[i]), s.lines[i+1]
		}
	}
	return 0, ""
}

// when is the time of the first line that starts with prefix (zero when
// there is none).
func (s *stampedLines) when(prefix string) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, l := range s.lines {
		if strings.HasPrefix(l, prefix) {
			return s.at[i]
		}
	}
	return time.Time{}
}

func (s *stampedLines) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.lines, "\n") + string(s.part)
}

// runStamped runs perflab in-process with its stderr lines timed.
func runStamped(t *testing.T, args ...string) (int, string, *stampedLines) {
	t.Helper()
	var out bytes.Buffer
	errs := &stampedLines{}
	env := Env{Stdout: &out, Stderr: errs, Getenv: func(string) string { return "" }, Executable: os.Args[0]}
	code := Main(context.Background(), args, env)
	return code, out.String(), errs
}

// TestRunReadyWithTheLoadsRequest: a POST-only service (405 to GET, 400
// to an empty body) loaded with -m POST --body, and a service behind a
// token (401 without it) loaded with -H, are ready at the first answer:
// the probe phase (from "waiting for" to the next line) takes under 2 s,
// and the run completes with every request answered.
func TestRunReadyWithTheLoadsRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: real runs of a service")
	}
	gate := labtest.BuildService(t, "gate")
	for _, tc := range []struct {
		name       string
		load, gate []string
	}{
		{"POST-only", []string{"-m", "POST", "--body", `{"q":1}`}, []string{"-method", "POST"}},
		{"token", []string{"-H", "Authorization: Bearer s3cret"}, []string{"-token", "s3cret"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api, pp, dir := labtest.FreeAddr(t), labtest.FreeAddr(t), t.TempDir()
			args := append([]string{"run", "--dir", dir, "-d", "1s", "--warmup", "0", "-c", "2", "--profiler", "none", "--no-trace"}, tc.load...)
			args = append(append(args, "http://"+api+"/", "--", gate, "-addr", api, "-pprof-addr", pp), tc.gate...)
			code, out, errs := runStamped(t, args...)
			if code != int(ExitOK) {
				t.Fatalf("perflab %s: exit %d; want 0\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errs)
			}
			took, next := errs.phase("perflab: waiting for ")
			t.Logf("the probe phase took %v", took.Round(time.Millisecond))
			if next == "" || took >= 2*time.Second {
				t.Errorf("the probe phase took %v (until %q); want under 2 s\nstderr:\n%s", took.Round(time.Millisecond), next, errs)
			}
			r := onlyRun(t, dir)
			if r.Status != runfmt.StatusComplete || r.Load == nil || r.Load.Requests == 0 || r.Load.Errors != 0 {
				t.Errorf("run %s (%s): load %+v; want complete with every request answered", r.Status, r.PartialReason, r.Load)
			}
		})
	}
}

// TestRunReadyFailsFast: a service answering 404 to the load's request,
// and a URL whose port accepts and never answers while the service
// listens elsewhere, end the run in 2 s or less from "waiting for", with
// exit 3 and a last line that says what perflab saw.
func TestRunReadyFailsFast(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: real runs of a service")
	}
	gate := labtest.BuildService(t, "gate")
	silent, err := net.Listen("tcp", "127.0.0.1:0") // never accepts: the kernel completes connections, nothing answers
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	for _, tc := range []struct {
		name string
		url  func(api string) string
		gate []string
		want []string
	}{
		{"all 404", func(api string) string { return "http://" + api + "/" }, []string{"-status", "404"},
			[]string{"answered 404 Not Found to GET http://", "--expect-status 404"}},
		{"silent port", func(string) string { return "http://" + silent.Addr().String() + "/" }, nil,
			[]string{silent.Addr().String() + " accepted the connection and sent no answer in 1s", "the service listens on 127.0.0.1:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api, pp, dir := labtest.FreeAddr(t), labtest.FreeAddr(t), t.TempDir()
			args := append([]string{"run", "--dir", dir, "-d", "1s", "--warmup", "0", "-c", "2", "--profiler", "none", "--no-trace",
				tc.url(api), "--", gate, "-addr", api, "-pprof-addr", pp}, tc.gate...)
			code, out, errs := runStamped(t, args...)
			lines := strings.Split(errs.String(), "\n")
			last := lines[len(lines)-1]
			if code != int(ExitFailed) {
				t.Errorf("perflab %s: exit %d; want 3\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(last, w) {
					t.Errorf("last line %q; want %q in it", last, w)
				}
			}
			// The service is stopped once the probe has failed, before the
			// partial run is written and the last line printed.
			from, to := errs.when("perflab: waiting for "), errs.when("perflab: stopping the service")
			t.Logf("the probe phase took %v: %s", to.Sub(from).Round(time.Millisecond), last)
			if from.IsZero() || to.IsZero() || to.Sub(from) > 2*time.Second {
				t.Errorf("the probe phase took %v; want 2 s or less\nstderr:\n%s", to.Sub(from).Round(time.Millisecond), errs)
			}
		})
	}
}
