package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// inputsServiceEnv turns the test binary into a service for the tests of
// this file (checked in init, before TestMain): "header ADDR" answers 200
// on /ready, and on other paths 200 only to a request whose X-Big header
// is PERFLAB_CLI_WANT_BIG bytes long and whose X-Token is "t0k3n" (400
// otherwise); "burn ADDR" spins on two cores whatever it is asked and
// answers 200.
const inputsServiceEnv = "PERFLAB_CLI_INPUTS_SERVICE"

func init() {
	if spec := os.Getenv(inputsServiceEnv); spec != "" {
		mode, addr, _ := strings.Cut(spec, " ")
		serveInputs(mode, addr)
		os.Exit(0)
	}
}

func serveInputs(mode, addr string) {
	want, _ := strconv.Atoi(os.Getenv("PERFLAB_CLI_WANT_BIG"))
	mux := http.NewServeMux()
	mux.HandleFunc("/ready", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if mode == "header" && (len(r.Header.Get("X-Big")) != want || r.Header.Get("X-Token") != "t0k3n") {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, "X-Big of %d bytes, want %d; X-Token %q\n", len(r.Header.Get("X-Big")), want, r.Header.Get("X-Token"))
		}
	})
	if mode == "burn" {
		runtime.GOMAXPROCS(3)
		for range 2 {
			go func() {
				for {
					inputsSink.Add(1)
				}
			}()
		}
	}
	fmt.Println("listening on", addr)
	fmt.Println(http.ListenAndServe(addr, mux))
}

var inputsSink atomic.Int64

// bigHeaderFile writes a header value of n bytes (and a newline) to a file.
func bigHeaderFile(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(path, append(bytes.Repeat([]byte("b"), n), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readRun parses the run.json that `run --json` printed.
func readRun(t *testing.T, stdout string) *runfmt.Run {
	t.Helper()
	var r runfmt.Run
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("run --json printed no run.json: %v\n%s", err, stdout)
	}
	return &r
}

// TestBigHeaderFromFileReachesService sends a 256 KiB header, more than
// one argument can hold, from a file (-H 'X-Big: @file') with a token from
// --header-file to a service launched under --cpus 1: every request
// arrives with both, the value exactly the file's less its newline.
func TestBigHeaderFromFileReachesService(t *testing.T) {
	labtest.RequireRoot(t, "the service runs in a cgroup with --cpus")
	const size = 256 << 10
	big := bigHeaderFile(t, size)
	tokens := writeTemp(t, "headers.txt", "# the staging token\nX-Token: t0k3n\n")
	addr := labtest.FreeAddr(t)
	code, stdout, stderr := perflab(t, "run", "--cpus", "1", "-c", "2", "-d", "2s", "--warmup", "300ms",
		"--profiler", "none", "--no-trace", "--quiet", "--json", "--dir", t.TempDir(),
		"--ready", "http://"+addr+"/ready",
		"-H", "X-Big: @"+big, "--header-file", tokens,
		"-e", inputsServiceEnv+"=header "+addr, "-e", "PERFLAB_CLI_WANT_BIG="+strconv.Itoa(size),
		"http://"+addr+"/", "--", os.Args[0])
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := readRun(t, stdout)
	if r.Load == nil || r.Load.Requests == 0 || r.Load.Status["200"] != r.Load.Requests {
		t.Fatalf("load %+v; want every request answered 200 (the service got the 256 KiB header and the token)", r.Load)
	}
	if r.Target == nil || r.Target.CPULimitCores != 1 {
		t.Errorf("target %+v; want cpu_limit_cores 1", r.Target)
	}
	if got := r.Config.Load["header"]; !strings.Contains(got, "@"+big) || len(got) > 1000 {
		t.Errorf("run.json records -H as %.200q; want the file's name, not its content", got)
	}
}

// TestLoadHeadersAndTargetsTogether gives a URL and --targets at once: the
// URL's request and the file's two are all sent, -H goes with every
// request, and a file's request that sets the header itself sends its own.
func TestLoadHeadersAndTargetsTogether(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]map[string]int{} // path → X-Shared → requests
	big := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if seen[r.URL.Path] == nil {
			seen[r.URL.Path] = map[string]int{}
		}
		seen[r.URL.Path][strings.Join(r.Header.Values("X-Shared"), "|")]++
		if r.Header.Get("X-Big") == strings.Repeat("v", 200<<10) {
			big++
		}
	}))
	defer srv.Close()
	targets := writeTemp(t, "targets.txt", fmt.Sprintf("GET %s/b\nX-Shared: own\n\nPOST %s/c\n< body\n", srv.URL, srv.URL))
	value := writeTemp(t, "v.txt", strings.Repeat("v", 200<<10))
	code, _, stderr := perflab(t, "load", "-n", "30", "-c", "1", "--quiet",
		"-H", "X-Shared: flag", "-H", "X-Big: @"+value, srv.URL+"/a", "--targets", targets)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := map[string]map[string]int{"/a": {"flag": 10}, "/b": {"own": 10}, "/c": {"flag": 10}}
	if fmt.Sprint(seen) != fmt.Sprint(want) || big != 30 {
		t.Errorf("requests by path and X-Shared: %v, %d with the 200 KiB X-Big; want %v, 30", seen, big, want)
	}
}

// TestRunTargetsIsAService runs `run --targets FILE -- CMD`: the command is
// a service loaded with the file's requests, not a batch program.
func TestRunTargetsIsAService(t *testing.T) {
	labtest.RequireRoot(t, "the service runs in a cgroup")
	addr := labtest.FreeAddr(t)
	targets := writeTemp(t, "targets.txt", fmt.Sprintf("GET http://%s/a\nX-Token: t0k3n\n\nGET http://%s/b\nX-Token: t0k3n\n", addr, addr))
	code, stdout, stderr := perflab(t, "run", "--targets", targets, "-c", "2", "-d", "1s", "--warmup", "300ms",
		"--profiler", "none", "--no-trace", "--quiet", "--json", "--dir", t.TempDir(), "--ready", "http://"+addr+"/ready",
		"-e", inputsServiceEnv+"=header "+addr, "--", os.Args[0])
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := readRun(t, stdout)
	if r.Batch != nil || r.Load == nil || r.Load.Requests == 0 || r.Load.Status["200"] != r.Load.Requests {
		t.Fatalf("run --targets FILE -- CMD: batch %v, load %+v; want a service loaded with the file's requests", r.Batch != nil, r.Load)
	}
	if len(r.Load.Targets) != 2 {
		t.Errorf("per-target stats %+v; want the file's two requests", r.Load.Targets)
	}
}

// TestInputFilesBadInput: a missing or oversized header file, and an empty
// targets file, are refused in one line with exit 2.
func TestInputFilesBadInput(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.txt")
	if err := os.WriteFile(huge, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, 5<<20); err != nil {
		t.Fatal(err)
	}
	empty := writeTemp(t, "empty.txt", "")
	lines := writeTemp(t, "two.txt", "one\ntwo\n")
	missing := filepath.Join(dir, "missing.txt")
	url := "http://127.0.0.1:1/"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"load", "-H", "X-Big: @" + missing, url}, "missing.txt: no such file"},
		{[]string{"load", "-H", "X-Big: @" + huge, url}, "more than the 4.0 MiB perflab reads"},
		{[]string{"load", "-H", "X-Big: @", url}, "give the file after @"},
		{[]string{"load", "-H", "X-Big: @" + lines, url}, "byte 4 is a line break"},
		{[]string{"run", "--header-file", missing, url, "--", "true"}, "missing.txt: no such file"},
		{[]string{"ab", "--header-file", huge, "--base", "true", "--new", "true", url}, "more than the 4.0 MiB"},
		{[]string{"sweep", "-H", "X: @" + missing, "--env", "GOGC=1,2", url, "--", "true"}, "missing.txt"},
		{[]string{"load", "--header-file", lines, url}, "line 1"},
		{[]string{"load", "--targets", empty}, "no requests"},
		{[]string{"run", "--targets", empty, "--", "true"}, "no requests"},
		{[]string{"load", "-m", "POST", "--targets", lines}, "--method sets the request of a URL"},
	} {
		code, stdout, stderr := perflab(t, tc.args...)
		got := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != int(ExitUsage) || len(got) != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("perflab %q: exit %d, stderr %q, stdout %.100q; want exit 2 and one line with %q", tc.args, code, stderr, stdout, tc.want)
		}
	}
}
