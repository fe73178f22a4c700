package capture

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

// endlessBodySlack is what the test allows beyond the body bound: the test
// binary's own heap and runtime, and a chunk being read.
const endlessBodySlack = 64 << 20

// TestEndlessProfileBodyMemory fetches a heap profile from an endpoint
// whose body never ends, in a process of its own, and checks its peak RSS:
// the body is cut at runfmt.MaxProfileBytes, and reading it costs that
// much memory, not the doubling of a growing buffer (661–853 MiB before).
func TestEndlessProfileBodyMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 256 MiB")
	}
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = byte(i*7 + i>>8)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestEndlessBodyHelper$", "-test.v")
	cmd.Env = append(os.Environ(), "PERFLAB_ENDLESS_URL="+srv.URL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	peak := -1
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "peak-rss-kib "); ok {
			peak, _ = strconv.Atoi(v)
		}
	}
	if peak < 0 {
		t.Fatalf("the helper printed no peak RSS:\n%s", out)
	}
	limit := (runfmt.MaxProfileBytes + endlessBodySlack) >> 10
	t.Logf("peak RSS %d MiB reading an endless body (bound %d MiB + %d MiB)", peak>>10, runfmt.MaxProfileBytes>>20, endlessBodySlack>>20)
	if peak > limit {
		t.Errorf("peak RSS %d MiB; want at most %d MiB", peak>>10, limit>>10)
	}
}

// TestEndlessBodyHelper is the process TestEndlessProfileBodyMemory
// measures.
func TestEndlessBodyHelper(t *testing.T) {
	u := os.Getenv("PERFLAB_ENDLESS_URL")
	if u == "" {
		t.Skip("run by TestEndlessProfileBodyMemory")
	}
	var c Client
	_, _, err := c.Fetch(context.Background(), u, "heap", "")
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("endless body: %v; want it refused as too large", err)
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			t.Logf("\npeak-rss-kib %s\n", strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
}
