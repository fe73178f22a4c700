package ui

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"perflab/internal/lab"
	"perflab/internal/labtest"
	"perflab/internal/load"
	"perflab/internal/runfmt"
	"perflab/internal/service"
	"perflab/internal/store"
)

var (
	runsOnce sync.Once
	runsRoot string
	runIDs   []string // buggy, fixed
	runsErr  error
)

// realRuns runs the tolower test service twice under perflab run (buggy,
// then fixed; 1.5 s windows, pprof profiles) into one run directory.
func realRuns(t *testing.T) (string, []string) {
	t.Helper()
	if testing.Short() {
		t.Skip("ui: makes two real runs of a test service")
	}
	runsOnce.Do(func() {
		bin := labtest.BuildService(t, "tolower")
		runsRoot, runsErr = os.MkdirTemp("", "perflab-ui-runs-")
		if runsErr != nil {
			return
		}
		for _, mode := range []string{"buggy", "fixed"} {
			addr, pprofAddr := labtest.FreeAddr(t), labtest.FreeAddr(t)
			u, err := load.ParseURL("http://" + addr + "/search?q=oak")
			if err != nil {
				runsErr = err
				return
			}
			res, err := lab.Run(context.Background(), lab.Config{
				Name:  "tolower-" + mode,
				Store: store.Store{Root: runsRoot},
				Load: load.Config{Targets: []load.Target{{Method: "GET", URL: u, Header: http.Header{}}},
					Concurrency: 2, Duration: 1500 * time.Millisecond},
				Warmup:  500 * time.Millisecond,
				Command: []string{bin, "-addr", addr, "-pprof-addr", pprofAddr, "-mode", mode},
				Budget:  service.Budget{CPUs: 1},
				Pprof:   "http://" + pprofAddr, Profiler: lab.ProfilerChoice(runfmt.ProfilerPprof),
				ReadyURL: u.String(), ReadyTimeout: 15 * time.Second, StopGrace: 2 * time.Second,
			})
			if err != nil {
				runsErr = err
				return
			}
			runIDs = append(runIDs, res.Run.ID)
		}
	})
	if runsErr != nil {
		t.Fatal(runsErr)
	}
	return runsRoot, runIDs
}

func TestMain(m *testing.M) {
	code := m.Run()
	if runsRoot != "" {
		os.RemoveAll(runsRoot)
	}
	os.Exit(code)
}

// get fetches path from the UI and returns status, content type and body.
func get(t testing.TB, h http.Handler, path string) (int, string, string) {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

func TestIndexListsRuns(t *testing.T) {
	root, ids := realRuns(t)
	code, ctype, body := get(t, New(store.Store{Root: root}, Options{}), "/")
	if code != 200 || !strings.HasPrefix(ctype, "text/html") {
		t.Fatalf("GET /: %d %s", code, ctype)
	}
	for _, want := range []string{ids[0], ids[1], "tolower-buggy", "runs/" + ids[0] + "/pprof/cpu/flamegraph",
		"runs/" + ids[1] + "/files/run.json", "2 runs in <code>" + root, `action="compare"`, "runs/" + ids[0] + "/flame"} {
		if !strings.Contains(body, want) {
			t.Errorf("index lacks %q", want)
		}
	}
	if strings.Index(body, ids[1]) > strings.Index(body, ids[0]) {
		t.Errorf("index lists %s before %s; want newest first", ids[0], ids[1])
	}
}

func TestIndexOfAnEmptyDirectory(t *testing.T) {
	code, _, body := get(t, New(store.Store{Root: t.TempDir()}, Options{}), "/")
	if code != 200 || !strings.Contains(body, "No runs yet") {
		t.Errorf("empty directory: %d, %q", code, body)
	}
}

func TestRunReportAndFiles(t *testing.T) {
	root, ids := realRuns(t)
	h := New(store.Store{Root: root}, Options{})
	if code, _, body := get(t, h, "/runs/"+ids[0]+"/"); code != 200 || !strings.Contains(body, "main.search") {
		t.Errorf("report: %d, names main.search: %t", code, strings.Contains(body, "main.search"))
	}
	code, ctype, body := get(t, h, "/runs/"+ids[0]+"/files/run.json")
	var run struct {
		ID string `json:"id"`
	}
	if code != 200 || json.Unmarshal([]byte(body), &run) != nil || run.ID != ids[0] {
		t.Errorf("run.json: %d %s id %q", code, ctype, run.ID)
	}
	if code, ctype, _ := get(t, h, "/runs/"+ids[0]+"/files/target.log"); code != 200 || !strings.HasPrefix(ctype, "text/plain") {
		t.Errorf("target.log: %d %s", code, ctype)
	}
	// A run without report.html (an interrupted one) is rendered on the fly.
	os.Remove(filepath.Join(root, ids[1], "report.html"))
	if code, _, body := get(t, h, "/runs/"+ids[1]+"/"); code != 200 || !strings.Contains(body, "tolower-fixed") {
		t.Errorf("report rendered without report.html: %d", code)
	}
}

func TestBadRequestsAreRefused(t *testing.T) {
	root, ids := realRuns(t)
	h := New(store.Store{Root: root}, Options{})
	for _, c := range []struct {
		path string
		code int
		msg  string
	}{
		{"/runs/" + ids[0] + "/files/..%2F..%2F..%2Fetc%2Fpasswd", 400, "not inside the run directory"},
		{"/runs/" + ids[0] + "/files/nope.txt", 404, "not in run"},
		{"/runs/20990101-000000-none/", 404, "not in " + root},
		{"/runs/a%2Fb/", 400, "not a run ID"},
		{"/runs/" + ids[0] + "/pprof/mutex/top", 404, `profile "mutex"`},
		{"/compare?base=" + ids[0], 400, "new is empty"},
		{"/compare?base=..%2Fx&new=" + ids[1], 400, "not a path"},
		{"/compare?base=nope&new=" + ids[1], 400, `no run matches "nope"`},
	} {
		code, _, body := get(t, h, c.path)
		if code != c.code || !strings.Contains(body, c.msg) {
			t.Errorf("GET %s: %d %q; want %d and %q", c.path, code, strings.TrimSpace(body), c.code, c.msg)
		}
	}
}

func TestPprofViews(t *testing.T) {
	root, ids := realRuns(t)
	h := New(store.Store{Root: root}, Options{})
	base := "/runs/" + ids[0] + "/pprof/cpu/"
	for _, view := range []string{"flamegraph", "top", "source?f=main.search", "peek?f=main.search"} {
		code, _, body := get(t, h, base+view)
		if code != 200 || !strings.Contains(body, "main.search") {
			t.Errorf("pprof %s: %d, names main.search: %t", view, code, strings.Contains(body, "main.search"))
		}
	}
	if code, _, body := get(t, h, "/runs/"+ids[0]+"/pprof/allocs/top"); code != 200 || !strings.Contains(body, "alloc_space") {
		t.Errorf("pprof allocs top: %d, has alloc_space: %t", code, strings.Contains(body, "alloc_space"))
	}
	// A corrupt profile is an error page, not a crash.
	cpu := filepath.Join(root, ids[1], "profiles", "cpu.pb.gz")
	orig, _ := os.ReadFile(cpu)
	defer os.WriteFile(cpu, orig, 0o644)
	os.WriteFile(cpu, []byte("not a profile"), 0o644)
	if code, _, body := get(t, h, "/runs/"+ids[1]+"/pprof/cpu/top"); code != 422 || !strings.Contains(body, "cpu.pb.gz") {
		t.Errorf("corrupt profile: %d %q; want 422 naming the file", code, body)
	}
}

func TestCompare(t *testing.T) {
	root, ids := realRuns(t)
	code, _, body := get(t, New(store.Store{Root: root}, Options{}), "/compare?base=tolower-buggy&new="+ids[1])
	if code != 200 {
		t.Fatalf("compare: %d %s", code, body)
	}
	for _, want := range []string{"CPU per request", "main.search", ids[0], ids[1]} {
		if !strings.Contains(body, want) {
			t.Errorf("comparison page lacks %q", want)
		}
	}
}
