package lab

// Acceptance tests of the frame that causes a cost: a constructor built
// on every request is named as such, at the line that builds it, with
// the advice to build once; the collector's time is charged to the code
// that allocates the bytes. Both run Go test services through lab.Run
// under a 1-core budget.

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// ctorService is the config of the Go test service built at bin, under
// more clients than its 1-core budget keeps up with.
func ctorService(t *testing.T, bin, path string, args ...string) Config {
	t.Helper()
	addr, pprofAddr := labtest.FreeAddr(t), labtest.FreeAddr(t)
	cfg := acceptanceConfig(t, addr, path, append([]string{bin, "-addr", addr, "-pprof-addr", pprofAddr}, args...)...)
	cfg.Pprof, cfg.Profiler = "http://"+pprofAddr, ProfilerChoice(runfmt.ProfilerPprof)
	cfg.Load.Concurrency, cfg.Load.Duration = 8, 4*time.Second
	return cfg
}

// lineWith is the number of the first line of file holding text.
func lineWith(t *testing.T, file, text string) int64 {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, text) {
			return int64(i + 1)
		}
	}
	t.Fatalf("%s holds no line with %q", file, text)
	return 0
}

// TestAcceptanceConstructorPerResponse: a gzip middleware that makes a
// gzip.Writer per response, whose first Write builds a flate compressor
// (800 KB of tables allocated and cleared): finding #1 is that
// constructor, at the middleware's line that makes the writer, with the
// advice to reuse writers (a sync.Pool, Reset), not to compress less.
// With the writers pooled (-mode fixed) no constructor is named.
func TestAcceptanceConstructorPerResponse(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs a service under load for seconds")
	}
	labtest.RequireRoot(t, "cgroups for the CPU budget")
	bin := labtest.BuildService(t, "gzipmw")
	makerLine := lineWith(t, "../../testdata/services/gzipmw/main.go", "gz := gzip.NewWriter(w)")
	gzipped := func(cfg Config) Config {
		cfg.Load.Targets[0].Header.Set("Accept-Encoding", "gzip")
		return cfg
	}
	t.Run("buggy", func(t *testing.T) {
		r, _ := runAcceptance(t, gzipped(ctorService(t, bin, "/catalog?page=3")))
		t.Logf("limit %s; doubts %v; findings:%s", r.Answer.First().Kind, r.Answer.Doubts, describeFindings(r.Findings))
		f := r.Findings[0]
		if f.Kind != runfmt.FindingConstructor {
			t.Fatalf("finding #1 is %s %q; want the constructor", f.Kind, title(f))
		}
		if !slices.Contains(f.Names(), "compress/flate.NewWriter") {
			t.Errorf("finding #1 names %v; want compress/flate.NewWriter", f.Names())
		}
		if len(f.Lines) == 0 || f.Lines[0].Line != makerLine || !strings.Contains(f.Lines[0].Text, "gzip.NewWriter") {
			t.Errorf("finding #1's lines %+v; want main.go:%d, the writer made per response, first", f.Lines, makerLine)
		}
		if d := detail(f); f.Advice != runfmt.AdviceBuildOnce || !strings.Contains(d, "sync.Pool") || !strings.Contains(d, "Reset") {
			t.Errorf("finding #1's advice %s: %q; want build-once, with a sync.Pool of writers Reset per response", f.Advice, d)
		}
		if cpu := f.Figures[runfmt.FigCPUPerRequest]; f.Payoff[runfmt.FigCPUPerRequest] < cpu || cpu <= 0 {
			t.Errorf("payoff %v; want at least its CPU, %.1f µs per request, with the collection its allocations cause", f.Payoff, cpu)
		}
		for _, o := range r.Findings {
			if c, _ := o.Culprit(); o.Advice == runfmt.AdviceCompressLess && c.Function == "main.(*gzipWriter).Write" {
				t.Errorf("finding %q advises compressing less where the cost is the writer's construction", title(o))
			}
		}
	})
	t.Run("fixed", func(t *testing.T) {
		r, _ := runAcceptance(t, gzipped(ctorService(t, bin, "/catalog?page=3", "-mode", "fixed")))
		t.Logf("findings:%s", describeFindings(r.Findings))
		for _, f := range r.Findings {
			if f.Kind == runfmt.FindingConstructor {
				t.Errorf("pooled writers: finding %q; want no constructor named", title(f))
			}
		}
	})
}

// TestAcceptanceGCChargedToAllocator: a handler that splits a 64 KiB
// document into rows and fields per column asked (1.1 MiB allocated per
// request) beside a 250-byte error value per request: the collector's
// time (the ledger's gc row), its CPU (the GC finding's allocators) and
// the payoff of fixing the splitter are charged by bytes, to the
// splitter.
func TestAcceptanceGCChargedToAllocator(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs a service under load for seconds")
	}
	labtest.RequireRoot(t, "cgroups for the CPU budget")
	r, _ := runAcceptance(t, ctorService(t, labtest.BuildService(t, "splitter"), "/totals?doc=3&cols=a,b,c,d"))
	t.Logf("limit %s; allocations %.0f B/request; findings:%s", r.Answer.First().Kind, r.AllocBytesPerRequest, describeFindings(r.Findings))
	const splitter = "main.columnTotal"
	i := slices.IndexFunc(r.Ledger.Time.Rows, func(row runfmt.LedgerRow) bool { return row.Part == runfmt.PartGC })
	if i < 0 {
		t.Fatalf("no gc row in the ledger %+v", r.Ledger.Time.Rows)
	}
	row := r.Ledger.Time.Rows[i]
	ms, ok := row.Ms()
	t.Logf("gc row %.3f ms: sites %+v; %s", ms, row.Sites, row.Note)
	switch {
	case !ok || ms <= 0:
		t.Errorf("gc row not measured: %s", row.NotMeasured)
	case len(row.Sites) == 0 || row.Sites[0].Function != splitter:
		t.Errorf("gc row's sites %+v; want %s first", row.Sites, splitter)
	case row.Sites[0].MsPerRequest < 0.9*ms || row.Sites[0].BytesPerRequest < 512<<10:
		t.Errorf("gc row's first site %+v of %.3f ms; want the splitter charged 90%% of it or more, by its bytes (over 512 KiB a request)", row.Sites[0], ms)
	}
	for _, s := range row.Sites[min(1, len(row.Sites)):] {
		if s.MsPerRequest > 0.01*ms {
			t.Errorf("gc row's site %+v holds %.1f%% of the row; want next to none for a few hundred bytes", s, 100*s.MsPerRequest/ms)
		}
	}
	gc := slices.IndexFunc(r.Findings, func(f runfmt.Finding) bool { return f.Kind == runfmt.FindingGC })
	if gc < 0 {
		t.Fatalf("no GC finding (GC %+v)", r.GC)
	}
	g := r.Findings[gc]
	var allocs []string
	for _, e := range g.Evidence.Functions {
		if e.Role == runfmt.RoleAllocator {
			allocs = append(allocs, e.Function)
		}
	}
	if len(allocs) == 0 || allocs[0] != splitter {
		t.Errorf("GC finding's allocators %v; want %s first", allocs, splitter)
	}
	if got, all := g.Payoff[runfmt.FigCPUPerRequest], g.Figures[runfmt.FigCPUPerRequest]; got > 0.1*all {
		t.Errorf("GC finding's payoff %.1f µs of its %.1f µs; want the splitter's bytes' share charged to the splitter", got, all)
	}
	rank, f := plantedRank(r.Findings, splitter)
	if rank == 0 {
		t.Fatalf("no finding names %s", splitter)
	}
	if gcUs, extra := g.Figures[runfmt.FigCPUPerRequest], f.Payoff[runfmt.FigCPUPerRequest]-f.Figures[runfmt.FigExclusiveCPU]; extra < 0.9*gcUs {
		t.Errorf("%s's payoff %v over its own CPU %.1f µs: %.1f µs of the GC's %.1f µs; want 90%% or more", splitter, f.Payoff, f.Figures[runfmt.FigExclusiveCPU], extra, gcUs)
	}
}
