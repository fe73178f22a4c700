package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// perflab runs the command tree in-process.
func perflab(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Executable: os.Args[0]}
	code = Main(context.Background(), args, env)
	return code, out.String(), errb.String()
}

func TestBadInputIsOneLineAndExit2(t *testing.T) {
	dir := t.TempDir()
	badTargets := filepath.Join(dir, "targets.txt")
	os.WriteFile(badTargets, []byte("GET http://127.0.0.1:1/\nnot a header\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"load", "127.0.0.1:8080"}, `URL "127.0.0.1:8080"`},
		{[]string{"demo", "--addr", "127.0.0.1"}, "--addr 127.0.0.1: want HOST:PORT"},
		{[]string{"demo", "--pprof-addr", "127.0.0.1:0"}, `--pprof-addr 127.0.0.1:0: port "0": must be from 1 to 65535`},
		{[]string{"load", "ftp://x/"}, "scheme must be http or https"},
		{[]string{"load", "-c", "0", "http://127.0.0.1:1/"}, "--concurrency 0: must be from 1 to 100000"},
		{[]string{"load", "-c", "abc", "http://127.0.0.1:1/"}, "--concurrency abc: want a whole number"},
		{[]string{"load", "--rate", "fast", "http://127.0.0.1:1/"}, `rate "fast"`},
		{[]string{"load", "--stages", "30s:10,oops", "http://127.0.0.1:1/"}, "stage 2"},
		{[]string{"load", "-H", "NoColon", "http://127.0.0.1:1/"}, `header "NoColon"`},
		{[]string{"load", "--targets", badTargets}, "line 2"},
		{[]string{"load", "--targets", filepath.Join(dir, "missing")}, "missing"},
		{[]string{"load", "--shard", "3/2", "http://127.0.0.1:1/"}, "--shard"},
		{[]string{"load", "--rate", "10", "-n", "5", "http://127.0.0.1:1/"}, "-n"},
		{[]string{"load"}, "no URL"},
		{[]string{"run", "--cpus", "0", "http://127.0.0.1:1/", "--", "true"}, "--cpus"},
		{[]string{"run", "--cpus", "-1", "http://127.0.0.1:1/", "--", "true"}, "--cpus"},
		{[]string{"run", "--cpus", "lots", "http://127.0.0.1:1/", "--", "true"}, "--cpus"},
		{[]string{"run", "--memory", "12 parsecs", "http://127.0.0.1:1/", "--", "true"}, "--memory"},
		{[]string{"run", "--pid", "1", "http://127.0.0.1:1/", "--", "true"}, "either --pid or -- CMD"},
		{[]string{"run", "-n", "100", "http://127.0.0.1:1/", "--", "true"}, "time window"},
		{[]string{"run", "--profiler", "magic", "http://127.0.0.1:1/", "--", "true"}, "--profiler"},
		{[]string{"run", "--find-max", "--slo", "p99<fast", "http://127.0.0.1:1/", "--", "true"}, "--slo"},
		{[]string{"merge", filepath.Join(dir, "missing.json")}, "missing.json"},
		{[]string{"runs", "show", "nope", "--dir", dir}, "no run matches"},
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"ui", "--addr", "8080"}, `--addr 8080: want HOST:PORT`},
		{[]string{"load", "--rate", "inf", "http://127.0.0.1:1/"}, `--rate inf`},
		{[]string{"load", "-q", "NaN", "http://127.0.0.1:1/"}, `--qps NaN: want a number from 0`},
		{[]string{"load", "-n", "-1", "http://127.0.0.1:1/"}, `--requests -1: must be at least 0`},
		{[]string{"load", "--timeout", "0", "http://127.0.0.1:1/"}, `--timeout 0: must be from 1ms`},
		{[]string{"load", "-m", "", "http://127.0.0.1:1/"}, `--method "": not an HTTP method`},
		{[]string{"load", "-H", "Content-Length: 5", "http://127.0.0.1:1/"}, `set by perflab from the body`},
		{[]string{"load", "--body-file", "/dev/zero", "http://127.0.0.1:1/"}, `not a regular file (a device)`},
		{[]string{"load", "--body-file", filepath.Join(dir, "missing"), "http://127.0.0.1:1/"}, `no such file`},
		{[]string{"load", "--stages", "24h:1,1s:2", "http://127.0.0.1:1/"}, `at most 24h`},
		{[]string{"load", "http://127.0.0.1:0/"}, `port 0 must be from 1 to 65535`},
		{[]string{"load", "http://127.0.0.1:70000/"}, `port 70000`},
		{[]string{"load", "--out", filepath.Join(dir, "missing", "x.json"), "http://127.0.0.1:1/"}, `--out`},
		{[]string{"load", "--out", "/dev/full", "http://127.0.0.1:1/"}, `perflab replaces only files`},
		{[]string{"run", "--ready", "ftp://x/", "http://127.0.0.1:1/", "--", "true"}, `--ready ftp://x/: scheme "ftp"`},
		{[]string{"run", "--find-max", "--start-rate", "inf", "http://127.0.0.1:1/", "--", "true"}, `--start-rate inf`},
		{[]string{"run", "--name", "../x", "http://127.0.0.1:1/", "--", "true"}, `--name ../x`},
		{[]string{"run", "--name", "a/b", "http://127.0.0.1:1/", "--", "true"}, `--name a/b`},
		{[]string{"run", "--dir", "", "http://127.0.0.1:1/", "--", "true"}, `--dir "": empty`},
		{[]string{"run", "--pid", "0", "http://127.0.0.1:1/"}, `--pid 0: must be from 1`},
		{[]string{"run", "--perf-hz", "0", "http://127.0.0.1:1/", "--", "true"}, `--perf-hz 0`},
		{[]string{"run", "--warmup", "-1s", "http://127.0.0.1:1/", "--", "true"}, `--warmup -1s`},
		{[]string{"flame", "--min-fraction", "2", "x", "-o", filepath.Join(dir, "f.html")}, `--min-fraction 2: must be from -1 to 1`},
		{[]string{"flame", "x", "-o", "/dev/full"}, `--output /dev/full`},
		{[]string{"top", "--focus", "(", "x"}, `--focus (: not a regular expression`},
		{[]string{"ui", "--addr", "127.0.0.1:70000"}, `port "70000"`},
		{[]string{"compare", "--fail-on", "p99>x", "a", "b"}, `--fail-on p99>x`},
		{[]string{"compare", "--html", filepath.Join(dir, "no", "x.html"), "a", "b"}, `--html`},
		{[]string{"runs", "rm", "--dir", dir}, `name the runs to remove`},
		{[]string{"runs", "rm", "", "--dir", dir}, `empty run reference`},
	} {
		code, stdout, stderr := perflab(t, tc.args...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != int(ExitUsage) || len(lines) != 1 || !strings.Contains(stderr, tc.want) || !strings.HasPrefix(stderr, "perflab: ") {
			t.Errorf("perflab %q: exit %d, stderr %q, stdout %q; want exit 2 and one line with %q", tc.args, code, stderr, stdout, tc.want)
		}
	}
}

func TestLoadJSONAndMerge(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	dir := t.TempDir()
	var files []string
	for _, shard := range []string{"1/2", "2/2"} {
		out := filepath.Join(dir, strings.ReplaceAll(shard, "/", "-")+".json")
		code, stdout, stderr := perflab(t, "load", "-n", "200", "-c", "4", "--shard", shard, "--json", "--out", out, "--quiet", srv.URL)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(stdout), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"requests", "errors", "duration_s", "rps", "latency_ms", "status_codes", "error_kinds", "series", "hdr_histogram"} {
			if _, ok := m[k]; !ok {
				t.Errorf("--json lacks %q", k)
			}
		}
		lat := m["latency_ms"].(map[string]any)
		for _, k := range []string{"mean", "p50", "p90", "p95", "p99", "p999", "max"} {
			if _, ok := lat[k]; !ok {
				t.Errorf("latency_ms lacks %q", k)
			}
		}
		files = append(files, out)
	}
	code, stdout, stderr := perflab(t, append([]string{"merge", "--json"}, files...)...)
	if code != 0 {
		t.Fatalf("merge exit %d: %s", code, stderr)
	}
	var merged struct {
		Requests int64 `json:"requests"`
		Shards   int   `json:"shards"`
	}
	json.Unmarshal([]byte(stdout), &merged)
	if merged.Requests != 200 || merged.Shards != 2 {
		t.Errorf("merged %+v; want 200 requests from 2 shards", merged)
	}
	code, stdout, _ = perflab(t, append([]string{"merge"}, files...)...)
	if code != 0 || !strings.Contains(stdout, "Requests/sec:") || !strings.Contains(stdout, "[200]\t200 responses") {
		t.Errorf("merge text: exit %d\n%s", code, stdout)
	}
}

func TestLoadTextSummary(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/boom" {
			w.WriteHeader(500)
		}
	}))
	defer srv.Close()
	code, stdout, _ := perflab(t, "load", "-n", "50", "-c", "2", "--quiet", srv.URL+"/", srv.URL+"/boom")
	for _, want := range []string{"Summary:", "Requests/sec:", "Response time histogram:", "Latency distribution:", "99.9% in", "Status code distribution:", "[500]\t25 responses", "[25]\tstatus-5xx"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	if code != 0 {
		t.Errorf("exit %d", code)
	}
}
