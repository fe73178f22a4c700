package lab

// Acceptance tests of the frame that owns the cost: in Go, Python and Ruby
// a test service builds a Hashie::Mash-like object per request, whose
// constructor spreads its cost over several user callees (deep_update,
// convert_key, convert_value, custom_writer, respond_to); the verdict must
// name the constructor first among the findings that name code, with its
// callees, on three consecutive runs.

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// constructorRuns is how many consecutive runs must each name the
// constructor.
const constructorRuns = 3

func TestAcceptanceConstructorOwnsCost(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs three services three times each under load")
	}
	type service struct {
		name        string
		config      func(t *testing.T) Config
		constructor []string // its names (rbspy names methods without their class before Ruby 3.3)
		callees     []string // at least two of these must be listed with it
	}
	services := []service{
		{"go", func(t *testing.T) Config {
			return goService(t, "gomash", "/price?sku=1234")
		}, []string{"main.NewMash"}, []string{"main.(*Mash).deepUpdate", "main.convertKey", "main.convertValue", "main.(*Mash).customWriter", "main.(*Mash).respondTo"}},
		{"python", func(t *testing.T) Config {
			return scriptService(t, "python3", "py-spy", runfmt.ProfilerPySpy, "pymash/server.py")
		}, []string{"Mash.__init__", "__init__"}, []string{"Mash.deep_update", "Mash.convert_key", "Mash.convert_value", "Mash.custom_writer", "Mash.respond_to",
			"deep_update", "convert_key", "convert_value", "custom_writer", "respond_to"}},
		{"ruby", func(t *testing.T) Config {
			return scriptService(t, "ruby", "rbspy", runfmt.ProfilerRbSpy, "rbhot/server.rb")
		}, []string{"Mash#initialize", "initialize"}, []string{"Mash#deep_update", "Mash#convert_key", "Mash#convert_value", "Mash#custom_writer", "Mash#respond_to_missing?",
			"deep_update", "convert_key", "convert_value", "custom_writer", "respond_to_missing?"}},
	}
	for _, svc := range services {
		t.Run(svc.name, func(t *testing.T) {
			for i := range constructorRuns {
				cfg := svc.config(t)
				cfg.Load.Duration, cfg.Warmup = 2*time.Second, time.Second
				r, _ := runAcceptance(t, cfg)
				f, rank := firstCodeFinding(r.Findings)
				t.Logf("run %d: first finding naming code (#%d overall): [%s] %s", i+1, rank, f.Kind, title(f))
				if len(f.Names()) == 0 || !slices.Contains(svc.constructor, f.Names()[0]) {
					t.Fatalf("run %d: the first finding naming code names %v, not the constructor %v:%s", i+1, f.Names(), svc.constructor, describeFindings(r.Findings))
				}
				listed := 0
				for _, c := range svc.callees {
					if slices.Contains(f.Names(), c) && strings.Contains(title(f), c[strings.LastIndexAny(c, ".#")+1:]) {
						listed++
					}
				}
				if listed < 2 || f.Figures[runfmt.FigCPUPerRequest] <= 0 {
					t.Errorf("run %d: finding %q lists %d of the callees %v (want 2 or more) at %.1f µs/request", i+1, title(f), listed, svc.callees, f.Figures[runfmt.FigCPUPerRequest])
				}
				for _, g := range r.Findings[:rank-1] {
					if g.Kind == KindHotUserFunction {
						t.Errorf("run %d: a leaf ranked above the constructor: %q", i+1, title(g))
					}
				}
			}
		})
	}
}

// scriptService is the config of a Python or Ruby test service serving
// /price, profiled by its language's sampler; the test skips, saying why,
// when the interpreter or the sampler is missing.
func scriptService(t *testing.T, interpreter, sampler string, profiler runfmt.Profiler, script string) Config {
	t.Helper()
	bin, err := exec.LookPath(interpreter)
	if err != nil {
		t.Skipf("%s not installed", interpreter)
	}
	if _, err := exec.LookPath(sampler); err != nil {
		t.Skipf("%s not installed (.ci/setup installs it)", sampler)
	}
	addr := labtest.FreeAddr(t)
	path, _ := filepath.Abs("../../testdata/services/" + script)
	cfg := acceptanceConfig(t, addr, "/price?sku=1234", bin, path, "--addr", addr)
	cfg.Profiler = ProfilerChoice(profiler)
	return cfg
}

// KindHotUserFunction is analysis's kind, spelt here to keep lab's tests
// free of analysis's internals.
const KindHotUserFunction = "hot-user-function"

// firstCodeFinding returns the first finding that names code as its
// culprit (a user function owning CPU, or library work under one), and its
// 1-based rank; findings about the GC or waiting come first
// when they explain more.
func firstCodeFinding(fs []runfmt.Finding) (runfmt.Finding, int) {
	for i, f := range fs {
		switch f.Kind {
		case KindHotUserFunction, "formatting", "encoding", "compression", "regexp", "reflection", "repeated-work":
			return f, i + 1
		}
	}
	return runfmt.Finding{}, 0
}
