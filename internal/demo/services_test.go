package demo

// Smoke tests of the test services in testdata/services: each Go service
// is built with `go build`, started on free ports, asked a few requests in
// both modes, and stopped with SIGTERM.

import (
	"bufio"
	"bytes"
	"fmt"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"perflab/internal/labtest"
)

// goServices are the Go test services, built once for the whole test binary.
var goServices = &labtest.Services{Names: []string{"hello", "fmtprint", "tolower", "pngencode", "gcheavy", "cpuburn", "stall", "gomash",
	"slowpeer", "downstream", "mutex", "sleepy", "leak"}}

// serviceBinary returns the path of the Go test service name.
func serviceBinary(t *testing.T, name string) string {
	t.Helper()
	return goServices.Binary(t, name)
}

// service is a running test service process.
type service struct {
	cmd        *exec.Cmd
	url, pprof string
	stderr     *bytes.Buffer
}

// startService runs the program on free ports and reads the URLs it prints.
func startService(t *testing.T, argv ...string) *service {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	s := &service{cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = s.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// Go services print a pprof line too; the Python and Ruby ones have no pprof.
	isGo := !slices.ContainsFunc(argv, func(a string) bool { return strings.HasSuffix(a, ".py") || strings.HasSuffix(a, ".rb") })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
			s.url = u
		}
		if u, ok := strings.CutPrefix(sc.Text(), "pprof on "); ok {
			s.pprof = u
		}
		if s.url != "" && (s.pprof != "" || !isGo) {
			break
		}
	}
	if s.url == "" {
		cmd.Wait()
		t.Fatalf("%v printed no \"listening on\" line; stderr: %s", argv, s.stderr)
	}
	go io.Copy(io.Discard, out)
	return s
}

// stop sends SIGTERM and checks the service exits cleanly within 10s.
func (s *service) stop(t *testing.T) *os.ProcessState {
	t.Helper()
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("%s after SIGTERM: %v; stderr: %s", s.cmd.Path, err, s.stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s still running 10s after SIGTERM", s.cmd.Path)
	}
	return s.cmd.ProcessState
}

func get(t *testing.T, url string) []byte {
	t.Helper()
	code, _, b := fetch(t, "GET", url, "")
	if code != 200 {
		t.Fatalf("GET %s: status %d: %.200s", url, code, b)
	}
	return b
}

var freePorts = []string{"-addr", "127.0.0.1:0", "-pprof-addr", "127.0.0.1:0"}

// bothModes starts name in buggy and fixed mode, GETs path from each a few
// times, checks the bodies agree and pprof answers, and returns the body.
func bothModes(t *testing.T, name, path string, extra ...string) []byte {
	t.Helper()
	var bodies [][]byte
	for _, mode := range []string{"buggy", "fixed"} {
		s := startService(t, append(append([]string{serviceBinary(t, name), "-mode=" + mode}, freePorts...), extra...)...)
		var b []byte
		for range 3 {
			b = get(t, s.url+path)
		}
		bodies = append(bodies, b)
		if idx := get(t, s.pprof); !bytes.Contains(idx, []byte("goroutine")) {
			t.Errorf("%s pprof index %s: %.200s", name, s.pprof, idx)
		}
		s.stop(t)
	}
	if !bytes.Equal(bodies[0], bodies[1]) {
		t.Errorf("%s %s: buggy and fixed answer differently:\n%.200q\n%.200q", name, path, bodies[0], bodies[1])
	}
	return bodies[0]
}

func TestServiceHello(t *testing.T) {
	if b := bothModes(t, "hello", "/"); string(b) != "hello, world\n" {
		t.Errorf("hello: %q", b)
	}
}

func TestServiceFmtprint(t *testing.T) {
	if b := bothModes(t, "fmtprint", "/file?name=3"); len(b) != 24<<10 {
		t.Errorf("fmtprint: %d bytes; want %d", len(b), 24<<10)
	}
}

func TestServiceGomash(t *testing.T) {
	if b := bothModes(t, "gomash", "/price?sku=1234"); string(b) != "1039 EUR\n" {
		t.Errorf("gomash: %q; want the price 1039 EUR", b)
	}
}

func TestServiceTolower(t *testing.T) {
	if b := bothModes(t, "tolower", "/search?q=STEEL+lamp"); !bytes.Contains(b, []byte(`"count":`)) || bytes.Contains(b, []byte(`"count":0`)) {
		t.Errorf("tolower: %s", b)
	}
}

func TestServicePngencode(t *testing.T) {
	b := bothModes(t, "pngencode", "/image")
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil || img.Bounds().Dx() != 128 {
		t.Fatalf("pngencode: decoding /image: %v", err)
	}
	s := startService(t, append([]string{serviceBinary(t, "pngencode")}, freePorts...)...)
	if code, _, _ := fetch(t, "POST", s.url+"/paint?x=1&y=2", ""); code != 200 {
		t.Fatalf("POST /paint: status %d", code)
	}
	img, err = png.Decode(bytes.NewReader(get(t, s.url+"/image")))
	if err != nil {
		t.Fatal(err)
	}
	if r, g, _, _ := img.At(1, 2).RGBA(); r != 0xffff || g != 0 {
		t.Errorf("pixel (1,2) after /paint = %v; want red", img.At(1, 2))
	}
	s.stop(t)
}

func TestServiceGcheavy(t *testing.T) {
	if b := bothModes(t, "gcheavy", "/parse"); !bytes.Contains(b, []byte(`"records":200`)) {
		t.Errorf("gcheavy GET /parse: %s", b)
	}
	s := startService(t, append([]string{serviceBinary(t, "gcheavy")}, freePorts...)...)
	code, _, b := fetch(t, "POST", s.url+"/parse", "status=500 level=error\nstatus=200\n")
	if code != 200 || !bytes.Contains(b, []byte(`"records":2,"server_errors":1`)) {
		t.Errorf("gcheavy POST /parse: %d %s", code, b)
	}
	if b := get(t, s.url+"/gcstats"); !bytes.Contains(b, []byte(`"gc_cpu_pct":`)) {
		t.Errorf("gcheavy /gcstats: %s", b)
	}
	s.stop(t)
}

func TestServiceStall(t *testing.T) {
	const stall = 300 * time.Millisecond
	for _, mode := range []string{"buggy", "fixed"} {
		s := startService(t, append([]string{serviceBinary(t, "stall"), "-mode=" + mode, "-period=2s", "-stall=" + stall.String()}, freePorts...)...)
		start := time.Now()
		get(t, s.url+"/") // the process started moments ago: inside the first window
		took := time.Since(start)
		if mode == "buggy" && took < stall/3 {
			t.Errorf("stall buggy: first request took %v; want it to wait out the %v window", took, stall)
		}
		if mode == "fixed" && took > stall {
			t.Errorf("stall fixed: first request took %v; want no stall", took)
		}
		s.stop(t)
	}
}

// TestServiceCpuburn checks that /burn?us=5000 costs at least 5ms of CPU
// per request more than /burn?us=0 (less 5% for the clocks' granularity),
// and not much more: the process's CPU (all its threads' schedstat) is read
// around each batch, so neither the Go runtime's start-up nor the
// per-request HTTP cost (which varies a lot between machines) counts
// against the burn. The runtime's other threads (sysmon polls while a
// goroutine runs) add CPU in proportion to the burn's wall time: a few
// percent on a quiet machine, up to about 15% on a loaded one, so the
// upper bound is 25%.
func TestServiceCpuburn(t *testing.T) {
	const n, us = 100, 5000
	s := startService(t, append([]string{serviceBinary(t, "cpuburn")}, freePorts...)...)
	batch := func(us int) time.Duration {
		before := childCPU(t, s.cmd.Process.Pid)
		for range n {
			b := get(t, s.url+"/burn?us="+strconv.Itoa(us))
			var got int
			if _, err := fmt.Sscanf(string(b), "burned %dus", &got); err != nil || got < us {
				t.Fatalf("burn?us=%d: %q; want \"burned Nus\" with N >= %d", us, b, us)
			}
		}
		return childCPU(t, s.cmd.Process.Pid) - before
	}
	batch(0) // warm up
	base, burned := batch(0), batch(us)
	perReq := (burned - base) / n
	t.Logf("cpuburn: %v CPU for %d requests of %dus, %v for %d of 0us: %v per burn", burned, n, us, base, n, perReq)
	if want := us * time.Microsecond; perReq < want*95/100 || perReq > want*125/100 {
		t.Errorf("cpuburn: %v CPU per burn; want %v, -5%% to +25%%", perReq, want)
	}
	if code, _, _ := fetch(t, "GET", s.url+"/burn?us=-1", ""); code != 400 {
		t.Errorf("/burn?us=-1: status %d; want 400", code)
	}
	s.stop(t)
}

// childCPU reads utime+stime of a whole process from /proc/PID/stat.
func childCPU(t *testing.T, pid int) time.Duration {
	t.Helper()
	// The scheduler's own count of each thread's time on a CPU, in
	// nanoseconds (the first field of /proc/PID/task/TID/schedstat): exact,
	// where /proc/PID/stat's utime and stime are ticks of 10 ms charged to
	// whoever runs when the tick comes, which a busy machine skews by 20%.
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(tasks) == 0 {
		t.Skipf("no /proc/%d/task/*/schedstat here", pid)
	}
	var ns int64
	for _, task := range tasks {
		b, err := os.ReadFile(task)
		if err != nil {
			continue // the thread exited
		}
		f := strings.Fields(string(b))
		if len(f) < 1 {
			t.Fatalf("%s: %q", task, b)
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", task, b, err)
		}
		ns += v
	}
	return time.Duration(ns)
}

func TestServicePyhot(t *testing.T) {
	py := labtest.NeedTool(t, "python3", "")
	var sums []string
	for _, mode := range []string{"buggy", "fixed"} {
		s := startService(t, py, "../../testdata/services/pyhot/server.py", "--addr", "127.0.0.1:0", "--mode", mode)
		var b []byte
		for range 3 {
			b = get(t, s.url+"/checksum")
		}
		sums = append(sums, string(b))
		if ps := s.stop(t); ps.ExitCode() != 0 {
			t.Errorf("pyhot exit code %d", ps.ExitCode())
		}
	}
	if sums[0] != sums[1] || sums[0] != "7ef1c3b2\n" {
		t.Errorf("pyhot checksums %q; want both 7ef1c3b2", sums)
	}
}

func TestServicePymash(t *testing.T) {
	py := labtest.NeedTool(t, "python3", "")
	var prices []string
	for _, mode := range []string{"buggy", "fixed"} {
		s := startService(t, py, "../../testdata/services/pymash/server.py", "--addr", "127.0.0.1:0", "--mode", mode)
		var b []byte
		for range 3 {
			b = get(t, s.url+"/price?sku=1234")
		}
		prices = append(prices, string(b))
		if code, _, body := fetch(t, "GET", s.url+"/price?sku=x", ""); code != 400 {
			t.Errorf("pymash %s /price?sku=x: %d %q; want 400", mode, code, body)
		}
		if ps := s.stop(t); ps.ExitCode() != 0 {
			t.Errorf("pymash %s exit code %d after SIGTERM", mode, ps.ExitCode())
		}
	}
	if prices[0] != prices[1] || prices[0] != "1039 EUR\n" {
		t.Errorf("pymash prices %q; want both \"1039 EUR\"", prices)
	}
}

func TestServiceRbhot(t *testing.T) {
	rb := labtest.NeedTool(t, "ruby", "")
	var prices []string
	for _, mode := range []string{"buggy", "fixed"} {
		s := startService(t, rb, "../../testdata/services/rbhot/server.rb", "--addr", "127.0.0.1:0", "--mode", mode)
		var b []byte
		for range 3 { // one keep-alive connection, several requests
			b = get(t, s.url+"/price?sku=1234")
		}
		prices = append(prices, string(b))
		if code, _, body := fetch(t, "GET", s.url+"/price?sku=-1", ""); code != 400 {
			t.Errorf("rbhot %s /price?sku=-1: %d %q; want 400", mode, code, body)
		}
		if code, _, _ := fetch(t, "GET", s.url+"/nope", ""); code != 404 {
			t.Errorf("rbhot %s /nope: %d; want 404", mode, code)
		}
		if ps := s.stop(t); ps.ExitCode() != 0 {
			t.Errorf("rbhot %s exit code %d after SIGTERM", mode, ps.ExitCode())
		}
	}
	if prices[0] != prices[1] || prices[0] != "1039 EUR\n" {
		t.Errorf("rbhot prices %q; want both \"1039 EUR\"", prices)
	}
}
