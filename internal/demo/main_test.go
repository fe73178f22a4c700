package demo

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the tests run Main as a real process: the test binary
// re-executed with PERFLAB_DEMO_MAIN=1 is the demo service.
func TestMain(m *testing.M) {
	if os.Getenv("PERFLAB_DEMO_MAIN") == "1" {
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	code := m.Run()
	goServices.Remove()
	moreServices.Remove()
	os.Exit(code)
}

// startMainProcess runs Main in a child process and returns it with the
// API URL it printed.
func startMainProcess(t *testing.T, args ...string) (*exec.Cmd, string, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "PERFLAB_DEMO_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		t.Fatalf("demo-service printed nothing; stderr: %s", stderr.String())
	}
	url, ok := strings.CutPrefix(sc.Text(), "listening on ")
	if !ok {
		t.Fatalf("first line %q; want \"listening on URL\"", sc.Text())
	}
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "pprof on http://") {
		t.Fatalf("second line %q; want \"pprof on URL\"", sc.Text())
	}
	go func() { // drain the pipe so Wait can return
		for sc.Scan() {
		}
	}()
	return cmd, url, &stderr
}

func TestMainServesAndStopsOnSIGTERM(t *testing.T) {
	cmd, url, stderr := startMainProcess(t, "-addr", "127.0.0.1:0", "-pprof-addr", "127.0.0.1:0", "-fixed")
	if code, _, body := fetch(t, "GET", url+"/healthz", ""); code != 200 || string(body) != "ok\n" {
		t.Fatalf("GET /healthz: %d %q", code, body)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("after SIGTERM: %v; want exit 0 (stderr: %s)", err, stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("demo-service still running 10s after SIGTERM")
	}
}

func TestMainRejectsBadFlags(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"-nope"}, &stdout, &stderr); code != 2 {
		t.Errorf("Main(-nope) = %d; want 2", code)
	}
	if code := Main([]string{"extra"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "unexpected arguments") {
		t.Errorf("Main(extra) = %d, stderr %q; want 2 and a message", code, stderr.String())
	}
	if code := Main([]string{"-addr", "256.0.0.1:bad"}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "-addr") {
		t.Errorf("Main(bad -addr) = %d, stderr %q; want 1 naming -addr", code, stderr.String())
	}
}
