package lab

import (
	"bytes"
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/capture"
	"perflab/internal/labtest"
	"perflab/internal/ownership"
	"perflab/internal/report"
	"perflab/internal/runfmt"
)

// TestAcceptanceNativeStacks runs the Rust axum service, whose summarize
// compiles a Regex on every request, built the way cargo builds by
// default (no frame pointers: perf unwinds with DWARF) and with frame
// pointers, without flags: the CPU profile's stacks reach the user's
// code, summarize is among the top 3 user functions by the CPU charged to
// them, and its samples have callers (the handler, the runtime).
func TestAcceptanceNativeStacks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and profiles the Rust test service")
	}
	needNativePerf(t)
	for _, fp := range []bool{false, true} {
		name, want := "default", runfmt.UnwindDWARF
		if fp {
			name, want = "frame-pointers", runfmt.UnwindFramePointers
		}
		t.Run(name, func(t *testing.T) {
			bin := labtest.CargoBuild(t, "axumapp", fp)
			r, dir, src := runAxumapp(t, bin)
			st := cpuStacks(t, r)
			if !st.Reach || st.Unwind != want || st.MedianFrames < 5 {
				t.Errorf("stacks %+v; want them to reach user code, unwound with %s, median 5 frames or more", st, want)
			}
			p := readCPUProfile(t, r, dir)
			m, err := ownership.Detect(ownership.Inputs{Executables: []string{bin}, Root: src})
			if err != nil {
				t.Fatal(err)
			}
			top, callers := userRanking(m, p, "summarize")
			t.Logf("%s: top user functions %v; %.0f%% of summarize's samples have callers", name, top[:min(5, len(top))], 100*callers)
			if i := slices.IndexFunc(top, func(s string) bool { return strings.HasSuffix(s, "::summarize") }); i < 0 || i >= 3 {
				t.Errorf("axumapp::summarize ranks %d among the user functions %v; want the top 3", i+1, top[:min(5, len(top))])
			}
			if callers < 0.9 {
				t.Errorf("%.0f%% of the samples under summarize have a caller; want 90%% or more", 100*callers)
			}
		})
	}
}

// TestAcceptanceStrippedBinary runs a stripped copy of the Rust service:
// no frame can be named, so the run says once, at the top, that the
// stacks do not reach the user's code, with the rebuild (keep symbols)
// and the CPU per module.
func TestAcceptanceStrippedBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and profiles the Rust test service")
	}
	needNativePerf(t)
	stripCmd := labtest.NeedTool(t, "strip", "")
	bin := filepath.Join(t.TempDir(), "axumapp")
	data, err := os.ReadFile(labtest.CargoBuild(t, "axumapp", false))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(stripCmd, bin).CombinedOutput(); err != nil {
		t.Fatalf("strip: %v: %s", err, out)
	}
	r, _, _ := runAxumapp(t, bin)
	st := cpuStacks(t, r)
	remedy := report.ReachRemedy(&st.StackReach)
	if st.Reach || st.Why == "" || !strings.Contains(remedy, "strip") || len(st.Modules) == 0 || st.Modules[0].Module != "axumapp" {
		t.Errorf("stacks of a stripped binary %+v; want them not to reach user code, why, a remedy keeping symbols (%q), axumapp first by module", st, remedy)
	}
	var b bytes.Buffer
	if err := report.WriteVerdict(&b, r, ""); err != nil {
		t.Fatal(err)
	}
	verdict := strings.Join(strings.Fields(b.String()), " ")
	_, first, _ := strings.Cut(verdict, "Profiling: ")
	if n := strings.Count(verdict, "do not reach your code"); n != 1 || !strings.HasPrefix(first, "the stacks do not reach your code") ||
		!strings.Contains(first, remedy) || !strings.Contains(first, "CPU by module: axumapp") {
		t.Errorf("the verdict says the stacks %d times; want once, first among the profiling notes, with the remedy and the CPU by module:\n%s", n, verdict)
	}
}

// needNativePerf skips the test unless perf runs here.
func needNativePerf(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("perf is Linux's")
	}
	labtest.NeedTool(t, "perf", "")
}

// runAxumapp runs perflab on the axum service bin, launched from its
// source directory (as a user runs ./target/release/axumapp), loading
// /summary; it returns the run, its directory and the source directory.
func runAxumapp(t *testing.T, bin string) (*runfmt.Run, string, string) {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "services", "axumapp"))
	if err != nil {
		t.Fatal(err)
	}
	addr := labtest.FreeAddr(t)
	cfg := acceptanceConfig(t, addr, "/summary", bin, "--addr", addr)
	cfg.Dir, cfg.Load.Duration = src, 5*time.Second
	r, dir := runAcceptance(t, cfg)
	return r, dir, src
}

// cpuStacks is the stacks record of the run's CPU profile.
func cpuStacks(t *testing.T, r *runfmt.Run) runfmt.Stacks {
	t.Helper()
	for _, ref := range r.Profiles {
		if ref.Type == runfmt.ProfileCPU && ref.Stacks != nil {
			return *ref.Stacks
		}
	}
	t.Fatalf("no CPU profile with a stacks record in %+v", r.Profiles)
	return runfmt.Stacks{}
}

func readCPUProfile(t *testing.T, r *runfmt.Run, dir string) *profile.Profile {
	t.Helper()
	for _, ref := range r.Profiles {
		if ref.Type != runfmt.ProfileCPU {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, ref.File))
		if err != nil {
			t.Fatal(err)
		}
		p, err := capture.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Fatal("no CPU profile")
	return nil
}

// userRanking ranks the user functions of p by the samples charged to
// them (ownership's charge: the user frame nearest the leaf), and returns
// the share of the samples with a frame of a function named ...fn that
// have a frame above it.
func userRanking(m *ownership.Model, p *profile.Profile, fn string) ([]string, float64) {
	c := m.ClassifyProfile(p)
	charged := map[string]int64{}
	var under, withCaller int64
	for _, s := range p.Sample {
		if ch := c.Charge(s); ch.Owner.Location >= 0 {
			l := s.Location[ch.Owner.Location].Line
			if ch.Owner.Line < len(l) {
				charged[l[ch.Owner.Line].Function.Name] += s.Value[0]
			}
		}
		for i, loc := range s.Location {
			if len(loc.Line) > 0 && strings.HasSuffix(loc.Line[0].Function.Name, "::"+fn) {
				under += s.Value[0]
				if i < len(s.Location)-1 {
					withCaller += s.Value[0]
				}
				break
			}
		}
	}
	names := make([]string, 0, len(charged))
	for n := range charged {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(charged[b], charged[a]), strings.Compare(a, b)) })
	if under == 0 {
		return names, 0
	}
	return names, float64(withCaller) / float64(under)
}
