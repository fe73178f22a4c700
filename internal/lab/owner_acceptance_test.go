package lab

// Acceptance tests of the frame that owns the cost: in Go, Python and Ruby
// a test service builds a Hashie::Mash-like object per request, whose
// constructor spreads its cost over several user callees (deep_update,
// convert_key, convert_value, custom_writer, respond_to); the verdict must
// name the constructor first among the findings that name code, with its
// callees, on three consecutive runs. A run perflab says was disturbed
// (the runtime spinning for threads without a CPU, or the split marked
// uncertain by an over-counted profile) is measured again
// (labtest.Clean).

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"perflab/internal/answer"
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
				var r *runfmt.Run
				var f runfmt.Finding
				labtest.Clean(t, func(attempt int) string {
					cfg := svc.config(t)
					cfg.Load.Duration, cfg.Warmup = 2*time.Second, time.Second
					r, _ = runAcceptance(t, cfg)
					var rank int
					f, rank = firstCodeFinding(r.Findings)
					t.Logf("run %d, attempt %d: first finding naming code (#%d overall): [%s] %s", i+1, attempt, rank, f.Kind, title(f))
					if s, ok := spinDominated(r.Findings); ok {
						// Beside other work the GC spun for a goroutine the
						// kernel did not run: what perflab must say first,
						// and the code's shares are of what is left.
						return fmt.Sprintf("the runtime spun for %.0f%% of the CPU, waiting for threads without a CPU: %q", 100*s.Figures[runfmt.FigShare], title(s))
					}
					if len(f.Names()) > 0 && slices.Contains(svc.constructor, f.Names()[0]) {
						return ""
					}
					// A sampler that reads stacks at every tick, starved of
					// CPU, puts a wait's samples on the code after it;
					// perflab must then say the split is uncertain.
					if c, ok := uncertainConstructor(r.Findings, svc.constructor); ok {
						return fmt.Sprintf("the constructor ranked below another function, with the split marked uncertain (profile %.1f× the CPU measured): %q", c.Figures[runfmt.FigOverCounted], title(c))
					}
					return ""
				})
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
			}
		})
	}
}

// scriptService is the config of a Python or Ruby test service serving
// /price, profiled by its language's sampler; the test skips, saying why,
// when the interpreter or the sampler is missing.
func scriptService(t *testing.T, interpreter, sampler string, profiler runfmt.Profiler, script string) Config {
	t.Helper()
	bin := labtest.NeedTool(t, interpreter, "")
	labtest.NeedTool(t, sampler, "")
	addr := labtest.FreeAddr(t)
	path, _ := filepath.Abs("../../testdata/services/" + script)
	cfg := acceptanceConfig(t, addr, "/price?sku=1234", bin, path, "--addr", addr)
	cfg.Profiler = ProfilerChoice(profiler)
	return cfg
}

// uncertainConstructor returns the finding naming the constructor when
// every code finding above it, and it, carry the mark of an over-counted
// profile (answer.OverCounted): the only case in which perflab may rank
// another function above the constructor, because it says its split
// cannot be trusted.
func uncertainConstructor(fs []runfmt.Finding, constructor []string) (runfmt.Finding, bool) {
	for _, f := range fs {
		if !namesCode(f) {
			continue
		}
		if f.Figures[runfmt.FigOverCounted] < answer.OverCountedRatio {
			return runfmt.Finding{}, false
		}
		if len(f.Names()) > 0 && slices.Contains(constructor, f.Names()[0]) {
			return f, true
		}
	}
	return runfmt.Finding{}, false
}

// spinDominated returns the spin-wait finding when it holds most of the
// CPU: the run's code shares are then of what is left, too little to rank
// the code by.
func spinDominated(fs []runfmt.Finding) (runfmt.Finding, bool) {
	for _, f := range fs {
		if f.Kind == runfmt.FindingSpinWait && f.Figures[runfmt.FigShare] >= 0.5 {
			return f, true
		}
	}
	return runfmt.Finding{}, false
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
		if namesCode(f) {
			return f, i + 1
		}
	}
	return runfmt.Finding{}, 0
}

// namesCode says a finding names code as its culprit.
func namesCode(f runfmt.Finding) bool {
	switch f.Kind {
	case KindHotUserFunction, "formatting", "encoding", "compression", "regexp", "reflection", "repeated-work":
		return true
	}
	return false
}

// TestUncertainConstructorNeedsTheMark: the findings of a Python run whose
// py-spy profile stands for several times the CPU measured (the samples of
// waits fall on the code after them) may rank the function after a wait
// above the constructor only while every code finding down to the
// constructor says the split is uncertain.
func TestUncertainConstructorNeedsTheMark(t *testing.T) {
	finding := func(culprit string, over float64) runfmt.Finding {
		f := runfmt.Finding{Kind: KindHotUserFunction, Figures: runfmt.Figures{runfmt.FigShare: 0.5}}
		if over > 0 {
			f.Figures[runfmt.FigOverCounted] = over
		}
		f.Evidence.Functions = []runfmt.FuncEvidence{{Role: runfmt.RoleCulprit, Function: culprit}}
		return f
	}
	constructor := []string{"Mash.__init__"}
	marked := []runfmt.Finding{finding("Handler.reply", 4.8), finding("Mash.__init__", 4.8)}
	if f, ok := uncertainConstructor(marked, constructor); !ok || f.Names()[0] != "Mash.__init__" {
		t.Errorf("marked findings: got %v, %v; want the constructor's finding", f.Names(), ok)
	}
	for name, fs := range map[string][]runfmt.Finding{
		"no mark":              {finding("Handler.reply", 0), finding("Mash.__init__", 0)},
		"mark under the ratio": {finding("Handler.reply", 1.2), finding("Mash.__init__", 1.2)},
		"no constructor":       {finding("Handler.reply", 4.8)},
	} {
		if _, ok := uncertainConstructor(fs, constructor); ok {
			t.Errorf("%s: accepted", name)
		}
	}
}
