package cli

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"perflab/internal/analysis"
	"perflab/internal/labtest"
	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// TestDemoOneNumberPerFunction runs `perflab demo` (without its A/B) and
// reads the CPU per request of its planted debugPrintItem on every page:
// the finding that names it, the verdict's top table (run.json's hot),
// perflab top --user, perflab list, the CPU account's scale and
// report.html's flame graph. They print one number (the profile scaled
// to the CPU measured once), within rounding.
func TestDemoOneNumberPerFunction(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo service under load for seconds")
	}
	labtest.RequireRoot(t, "the demo runs its service under a 1-CPU cgroup budget")
	const fn = "perflab/internal/demo.debugPrintItem"
	dir := t.TempDir()
	env, _, errb := testEnv()
	env.Executable = os.Args[0]
	if code := Main(context.Background(), []string{"demo", "--no-ab", "--quiet", "-d", "4s", "--warmup", "2s", "--dir", dir}, env); code != 0 {
		t.Fatalf("perflab demo exited %d: %s", code, errb.String())
	}
	es, err := store.Store{Root: dir}.Resolve("latest")
	if err != nil {
		t.Fatal(err)
	}
	r := es[0].Run
	scale := r.CPUScale()
	pages := map[string]float64{} // µs per request
	for _, h := range r.Hot {
		if h.Function == fn && h.UserCode {
			pages["verdict's top table"] = h.CPUUsPerRequest + h.AttributedUsReq
			break
		}
	}
	for _, f := range r.Findings {
		if c, ok := f.Culprit(); ok && c.Function == fn && f.Figures[runfmt.FigCPUPerRequest] > 0 {
			pages["finding "+string(f.Kind)] = f.Figures[runfmt.FigCPUPerRequest]
		}
	}
	var top analysis.TopRecord
	cliJSON(t, &top, "top", "--user", "--json", "--dir", dir, "latest")
	for _, row := range top.Rows {
		if row.Function == fn {
			pages["perflab top --user"] = row.FlatPerRequest / 1e3
		}
	}
	var list analysis.ListRecord
	cliJSON(t, &list, "list", "--json", "--dir", dir, regexp.QuoteMeta(fn)+"$", "latest")
	if len(list.Functions) == 1 && list.Requests > 0 {
		pages["perflab list"] = float64(list.Functions[0].Cum) * list.Scale / float64(list.Requests) / 1e3
	}
	if a := r.Ledger; a == nil || a.CPU == nil || math.Abs(a.CPU.Scale-scale) > 1e-9*scale {
		t.Errorf("the CPU account's scale %+v; want the run's %.4f", a, scale)
	}
	html, err := os.ReadFile(filepath.Join(es[0].Dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`requests(?:"|&#34;):(\d+),(?:"|&#34;)scale(?:"|&#34;):([0-9.e+-]+)`).FindSubmatch(html)
	if m == nil {
		t.Errorf("report.html's flame graph has no requests and scale")
	} else if n, _ := strconv.ParseInt(string(m[1]), 10, 64); n != r.PerRequestCount() || !near(parseF(m[2]), scale) {
		t.Errorf("report.html's flame graph per request: %s requests ×%s; want %d ×%.4f", m[1], m[2], r.PerRequestCount(), scale)
	}
	t.Logf("%s per request, scale ×%.4f over %d requests: %v", fn, scale, r.PerRequestCount(), pages)
	if len(pages) < 4 {
		t.Fatalf("%s on %d pages (%v); want the finding, the verdict's top, top and list", fn, len(pages), pages)
	}
	want := pages["verdict's top table"]
	for page, us := range pages {
		if !near(us, want) {
			t.Errorf("%s: %.1f µs per request; the verdict's top table says %.1f µs", page, us, want)
		}
	}
}

// cliJSON runs perflab with args and decodes its JSON output into v.
func cliJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	env, out, errb := testEnv()
	if code := Main(context.Background(), args, env); code != 0 {
		t.Fatalf("perflab %v exited %d: %s", args, code, errb.String())
	}
	if err := json.Unmarshal(out.Bytes(), v); err != nil {
		t.Fatalf("perflab %v: %v", args, err)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 0.001*math.Max(math.Abs(a), math.Abs(b)) }

func parseF(b []byte) float64 {
	f, _ := strconv.ParseFloat(string(b), 64)
	return f
}
