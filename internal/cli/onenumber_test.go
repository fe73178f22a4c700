package cli

import (
	"context"
	"encoding/json"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"perflab/internal/analysis"
	"perflab/internal/labtest"
	"perflab/internal/runfmt"
	"perflab/internal/store"
	"perflab/internal/ui"
)

// TestDemoOneNumberPerFunction runs `perflab demo` (without its A/B) twice
// and reads the CPU per request of its planted debugPrintItem on every
// page of each run: the finding that names it, the verdict's top table
// (run.json's hot), perflab top --user, perflab list, the CPU account's
// scale, report.html's flame graph and perflab compare's base and new
// columns. They print one number (the profile scaled to the CPU measured
// once, over the requests answered), within rounding.
func TestDemoOneNumberPerFunction(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo service under load for seconds")
	}
	labtest.RequireRoot(t, "the demo runs its service under a 1-CPU cgroup budget")
	const fn = "perflab/internal/demo.debugPrintItem"
	dir := t.TempDir()
	for range 2 {
		env, _, errb := testEnv()
		env.Executable = os.Args[0]
		if code := Main(context.Background(), []string{"demo", "--no-ab", "--quiet", "-d", "4s", "--warmup", "2s", "--dir", dir}, env); code != 0 {
			t.Fatalf("perflab demo exited %d: %s", code, errb.String())
		}
	}
	checkOneNumber(t, dir, func(name string) bool { return name == fn })
}

// TestPySpyOneNumberPerFunction is TestDemoOneNumberPerFunction for a
// Python service sampled by py-spy: pyhot's hot_checksum, two runs.
func TestPySpyOneNumberPerFunction(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a Python service under load for seconds")
	}
	labtest.RequireRoot(t, "py-spy reads the service's memory; the service runs under a cgroup budget")
	labtest.NeedTool(t, "python3", "")
	labtest.NeedTool(t, "py-spy", "")
	server, err := filepath.Abs("../../testdata/services/pyhot/server.py")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for range 2 {
		// Half the load goes to a port nobody listens on: refused, those
		// requests are not answered, and the CPU per request divides by
		// the answered only, on every page.
		api, refused := labtest.FreeAddr(t), labtest.RefusedAddr(t)
		env, _, errb := testEnv()
		if code := Main(context.Background(), []string{"run", "--quiet", "--dir", dir, "--name", "pyhot",
			"-d", "4s", "--warmup", "1s", "--cpus", "1", "-c", "4", "http://" + api + "/checksum", "http://" + refused + "/checksum",
			"--", "python3", server, "--addr", api}, env); code != 0 {
			t.Fatalf("perflab run exited %d: %s", code, errb.String())
		}
	}
	checkOneNumber(t, dir, func(name string) bool { return strings.HasPrefix(name, "hot_checksum") })
}

// checkOneNumber checks that the two runs in dir print one CPU cost per
// request for the user function that is matches, on every page.
func checkOneNumber(t *testing.T, dir string, is func(string) bool) {
	t.Helper()
	es, err := store.Store{Root: dir}.List()
	if err != nil || len(es) != 2 {
		t.Fatalf("runs in %s: %d, %v; want 2", dir, len(es), err)
	}
	base, new := es[1], es[0] // List is newest first
	var cmp runfmt.Comparison
	cliJSON(t, &cmp, "compare", "--json", "--dir", dir, base.Run.ID, new.Run.ID)
	for i, e := range []store.Entry{base, new} {
		pages, fn := runPages(t, dir, e, is)
		for _, d := range cmp.Functions {
			if d.Function == fn && d.Profile == runfmt.ProfileCPU {
				pages["perflab compare"] = []float64{d.Base, d.New}[i]
			}
		}
		t.Logf("run %s: %s per request, scale ×%.4f over %d of %d requests: %v",
			e.Run.ID, fn, e.Run.CPUScale(), e.Run.PerRequestCount(), e.Run.Load.Requests, pages)
		for _, page := range []string{"perflab top --user", "perflab list", "perflab compare"} {
			if _, ok := pages[page]; !ok {
				t.Errorf("run %s: %s is not on %s (%v)", e.Run.ID, fn, page, pages)
			}
		}
		want := pages["verdict's top table"]
		for page, us := range pages {
			if !near(us, want) {
				t.Errorf("run %s: %s: %.1f µs per request; the verdict's top table says %.1f µs", e.Run.ID, page, us, want)
			}
		}
	}
}

// runPages reads the CPU per request (µs) of the run's user function that
// is matches on each page of the run itself, and the function's name.
func runPages(t *testing.T, dir string, e store.Entry, is func(string) bool) (map[string]float64, string) {
	t.Helper()
	r := e.Run
	scale := r.CPUScale()
	pages := map[string]float64{}
	fn := ""
	for _, h := range r.Hot {
		if is(h.Function) && h.UserCode {
			fn = h.Function
			pages["verdict's top table"] = h.CPUUsPerRequest + h.AttributedUsReq
			break
		}
	}
	if fn == "" {
		t.Fatalf("run %s: no matching user function in the verdict's top table %+v", r.ID, r.Hot)
	}
	for _, f := range r.Findings {
		c, ok := f.Culprit()
		us := f.Figures[runfmt.FigCPUPerRequest]
		if !ok || c.Function != fn || us <= 0 {
			continue
		}
		if f.Kind == runfmt.FindingHotUserFunction {
			pages["finding "+string(f.Kind)] = us
			continue
		}
		// A category finding's figure is the category's work under the
		// function (fmt's under debugPrintItem): a part of its cost, all
		// of it but the few samples of its own code and the runtime's.
		if total := pages["verdict's top table"]; us > total*1.0005 || us < 0.8*total {
			t.Errorf("run %s: finding %s: %.1f µs per request of %s's %.1f µs; want most of it and no more", r.ID, f.Kind, us, fn, total)
		}
	}
	var top analysis.TopRecord
	cliJSON(t, &top, "top", "--user", "--json", "--dir", dir, r.ID)
	for _, row := range top.Rows {
		if row.Function == fn {
			pages["perflab top --user"] = row.FlatPerRequest / 1e3
		}
	}
	var list analysis.ListRecord
	cliJSON(t, &list, "list", "--json", "--dir", dir, "^"+regexp.QuoteMeta(fn)+"$", r.ID)
	if len(list.Functions) == 1 && list.Requests > 0 {
		pages["perflab list"] = float64(list.Functions[0].Cum) * list.Scale / float64(list.Requests) / 1e3
	}
	if a := r.Ledger; a == nil || a.CPU == nil || math.Abs(a.CPU.Scale-scale) > 1e-9*scale {
		t.Errorf("run %s: the CPU account's scale %+v; want the run's %.4f", r.ID, a, scale)
	}
	html, err := os.ReadFile(filepath.Join(e.Dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	checkFlameScale(t, r, "report.html", html)
	srv := ui.New(store.Store{Root: dir}, ui.Options{})
	for _, path := range []string{"/runs/" + r.ID + "/", "/runs/" + r.ID + "/flame"} {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1"+path, nil))
		if rec.Code != 200 {
			t.Errorf("the UI's %s: %d %s", path, rec.Code, rec.Body)
			continue
		}
		checkFlameScale(t, r, "the UI's "+path, rec.Body.Bytes())
	}
	return pages, fn
}

// checkFlameScale checks that the CPU flame graph in page divides by the
// run's count of requests and scales by its CPU scale.
func checkFlameScale(t *testing.T, r *runfmt.Run, name string, page []byte) {
	t.Helper()
	m := regexp.MustCompile(`requests(?:"|&#34;|\\u0026#34;):(\d+),(?:"|&#34;|\\u0026#34;)scale(?:"|&#34;|\\u0026#34;):([0-9.e+-]+)`).FindSubmatch(page)
	if m == nil {
		t.Errorf("run %s: %s's flame graph has no requests and scale", r.ID, name)
	} else if n, _ := strconv.ParseInt(string(m[1]), 10, 64); n != r.PerRequestCount() || !near(parseF(m[2]), r.CPUScale()) {
		t.Errorf("run %s: %s's flame graph per request: %s requests ×%s; want %d ×%.4f", r.ID, name, m[1], m[2], r.PerRequestCount(), r.CPUScale())
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
