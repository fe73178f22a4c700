package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// TestDemoPerEndpoint runs `perflab demo` (without its A/B) and checks its
// verdict's per-endpoint table: every target of the load broken down, and
// the four planted costs each under the endpoint that carries it.
func TestDemoPerEndpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo service under load for seconds")
	}
	labtest.RequireRoot(t, "the demo runs its service under a 1-CPU cgroup budget")
	dir := t.TempDir()
	env, out, errb := testEnv()
	env.Executable = os.Args[0]
	api, pprofAddr, err := freeAddrs()
	if err != nil {
		t.Fatal(err)
	}
	code := Main(context.Background(), []string{"demo", "--no-ab", "--quiet", "-d", "4s", "--warmup", "2s", "--dir", dir, "--addr", api, "--pprof-addr", pprofAddr}, env)
	if code != 0 {
		t.Fatalf("perflab demo exited %d: %s", code, errb.String())
	}
	es, err := store.Store{Root: dir}.Resolve("latest")
	if err != nil {
		t.Fatal(err)
	}
	r := es[0].Run
	if !strings.HasPrefix(r.Config.URL, "http://"+api+"/") || !strings.Contains(strings.Join(r.Config.Command, " "), "-pprof-addr "+pprofAddr) {
		t.Errorf("the demo ran on %s (%q); want --addr %s and --pprof-addr %s", r.Config.URL, r.Config.Command, api, pprofAddr)
	}
	t.Logf("verdict:\n%s", out.String())
	if r.Load == nil || len(r.Load.Targets) != 4 {
		t.Fatalf("load targets %+v; want the four endpoints broken down", r.Load)
	}
	if r.Endpoints == nil {
		t.Fatal("run.json has no endpoints")
	}
	planted := map[string]string{
		"/search":   "perflab/internal/demo.searchLowerEachTime",
		"/render":   "perflab/internal/demo.renderGridUncached",
		"/api/item": "perflab/internal/demo.debugPrintItem",
		"/ingest":   "perflab/internal/demo.parseLogLinesNaive",
	}
	for path, fn := range planted {
		h := handlerFor(r, path)
		if h == nil {
			t.Errorf("no handler tied to %s: %+v", path, r.Endpoints.Handlers)
			continue
		}
		if h.Owner != fn || !h.PerTargetRequest || h.CPUUsPerRequest <= 0 {
			t.Errorf("%s: handler %s owner %q (%.0f µs/request, per target %t); want %s", path, h.Handler, h.Owner, h.CPUUsPerRequest, h.PerTargetRequest, fn)
		}
		line := tableLine(out.String(), "GET "+path)
		short := fn[strings.LastIndexByte(fn, '.')+1:]
		if !strings.Contains(line, short) {
			t.Errorf("the verdict's per-endpoint row for %s is %q; want it to name %s", path, line, short)
		}
	}
	if r.Endpoints.ExplainedPct < 50 {
		t.Errorf("handlers explain %.0f%% of CPU; want most of it", r.Endpoints.ExplainedPct)
	}
	report, err := os.ReadFile(filepath.Join(es[0].Dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	// report.html stays one small offline file, with the GC on its memory
	// chart (gctrace's collections of the window, kept in run.json).
	if len(report) > 1536<<10 {
		t.Errorf("the demo's report.html is %d KiB; want under 1.5 MiB", len(report)>>10)
	}
	if r.GC == nil || len(r.GC.Events) == 0 || !strings.Contains(string(report), "a collection") {
		t.Errorf("the demo's run has no GC events on its memory chart (gc %+v)", r.GC)
	}
}

// handlerFor returns the handler whose targets include path.
func handlerFor(r *runfmt.Run, path string) *runfmt.EndpointCPU {
	for i, h := range r.Endpoints.Handlers {
		for _, t := range h.Targets {
			if strings.Contains(t, path) {
				return &r.Endpoints.Handlers[i]
			}
		}
	}
	return nil
}

// tableLine returns the line of the per-endpoint table starting with target.
func tableLine(out, target string) string {
	_, after, _ := strings.Cut(out, "Per endpoint")
	for _, l := range strings.Split(after, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), target) {
			return l
		}
	}
	return ""
}
