package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"perflab/internal/runfmt"
)

func readLoadJSON(t *testing.T, path string) *runfmt.LoadResult {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r runfmt.LoadResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &r
}

// TestShardsStartTogether: four shard processes started at staggered
// moments, given one --start-at, merge into the per-second series of one
// process at the full rate (within 5%). A second in which the machine
// held either side off its CPUs (the open model then catches up in the
// next) is the machine's, not the shards': the comparison is made again,
// up to three times, and fails when every attempt does.
func TestShardsStartTogether(t *testing.T) {
	if testing.Short() {
		t.Skip("runs five perflab processes for 4 s each")
	}
	bin := buildPerflab(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	var errs []string
	for attempt := 1; attempt <= 3; attempt++ {
		if errs = shardsAgainstOne(t, bin, srv.URL); len(errs) == 0 {
			return
		}
		t.Logf("attempt %d: %s", attempt, strings.Join(errs, "; "))
	}
	t.Errorf("the shards' merged series differ from one process's in each of 3 attempts; the last:\n%s", strings.Join(errs, "\n"))
}

// shardsAgainstOne runs one load at the full rate, then four shards with
// one --start-at, and returns how their per-second series differ.
func shardsAgainstOne(t *testing.T, bin, url string) []string {
	t.Helper()
	dir := t.TempDir()
	const rate, secs = 400, 4
	load := func(ctx context.Context, out string, extra ...string) *exec.Cmd {
		args := append([]string{"load", "--rate", fmt.Sprint(rate), "-d", fmt.Sprintf("%ds", secs), "--quiet", "--json", "--out", out}, extra...)
		return exec.CommandContext(ctx, bin, append(args, url)...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	full := filepath.Join(dir, "full.json")
	if out, err := load(ctx, full).CombinedOutput(); err != nil {
		t.Fatalf("the full-rate load: %v\n%s", err, out)
	}
	at := time.Now().Add(5 * time.Second).UTC().Format(time.RFC3339Nano)
	var shards []string
	var cmds []*exec.Cmd
	for i := 1; i <= 4; i++ {
		out := filepath.Join(dir, fmt.Sprintf("shard%d.json", i))
		c := load(ctx, out, "--shard", fmt.Sprintf("%d/4", i), "--start-at", at)
		c.Stderr = os.Stderr
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		shards, cmds = append(shards, out), append(cmds, c)
		time.Sleep(500 * time.Millisecond) // planted: the shards start staggered, as a job runner starts them
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("shard %d: %v", i+1, err)
		}
	}
	code, stdout, stderr := perflab(t, append([]string{"merge", "--json"}, shards...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	var merged runfmt.LoadResult
	if err := json.Unmarshal([]byte(stdout), &merged); err != nil {
		t.Fatal(err)
	}
	if merged.Start != at && !sameInstant(merged.Start, at) {
		t.Errorf("merged start %q; want --start-at %s", merged.Start, at)
	}
	want := readLoadJSON(t, full)
	var errs []string
	for s := range secs {
		if s >= len(merged.Series) || s >= len(want.Series) {
			t.Fatalf("series of %d and %d seconds; want %d", len(merged.Series), len(want.Series), secs)
		}
		m, f := merged.Series[s].Requests, want.Series[s].Requests
		if math.Abs(float64(m-f)) > 0.05*float64(f) {
			errs = append(errs, fmt.Sprintf("second %d: the shards merged sent %d requests, one process at the full rate %d (series %s vs %s)", s, m, f, series(merged.Series), series(want.Series)))
		}
	}
	return errs
}

func sameInstant(a, b string) bool {
	ta, err1 := time.Parse(time.RFC3339Nano, a)
	tb, err2 := time.Parse(time.RFC3339Nano, b)
	return err1 == nil && err2 == nil && ta.Equal(tb)
}

func series(ps []runfmt.SeriesPoint) string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprint(p.Requests))
	}
	return "[" + strings.Join(out, " ") + "]"
}

func TestStartAtBadInput(t *testing.T) {
	past := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	far := fmt.Sprint(time.Now().Add(48 * time.Hour).Unix())
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"load", "--start-at", past, "http://127.0.0.1:1/"}, "--start-at " + past + ": " + past},
		{[]string{"load", "--start-at", far, "http://127.0.0.1:1/"}, "--start-at " + far + ": "},
		{[]string{"load", "--start-at", "noon", "http://127.0.0.1:1/"}, `--start-at noon: "noon": want an RFC 3339 time`},
		{[]string{"run", "--warmup", "0", "--start-at", time.Now().Add(time.Hour).UTC().Format(time.RFC3339), "http://127.0.0.1:1/", "--", "true"}, "--start-at with --warmup 0"},
	} {
		code, _, stderr := perflab(t, tc.args...)
		if code != int(ExitUsage) || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("perflab %q: exit %d, %q; want exit 2 and one line with %q", tc.args, code, stderr, tc.want)
		}
	}
	code, _, stderr := perflab(t, "load", "--start-at", past, "http://127.0.0.1:1/")
	if !strings.Contains(stderr, "in the past") || code != int(ExitUsage) {
		t.Errorf("a past --start-at: exit %d, %q", code, stderr)
	}
}
