package lab

// Acceptance test of a JVM service launched as the user would start it
// (`java -cp DIR Server`): perflab's run must reach the user's method that
// compiles a Pattern per call, with its callers, and tell the JIT
// compiler's work apart.

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/labtest"
	"perflab/internal/ownership"
	"perflab/internal/runfmt"
)

// javaService is the config of the javapattern service in mode, compiled
// with javac into a temporary directory; the test skips, saying why, when
// the JDK is missing.
func javaService(t *testing.T, mode string) Config {
	t.Helper()
	javac, err := exec.LookPath("javac")
	if err != nil {
		t.Skip("javapattern needs javac: not in PATH (apt-get install openjdk-17-jdk-headless)")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("javapattern needs java: not in PATH")
	}
	classes := t.TempDir()
	if out, err := exec.Command(javac, "-d", classes, "../../testdata/services/javapattern/Server.java").CombinedOutput(); err != nil {
		t.Fatalf("javac javapattern/Server.java: %v\n%s", err, out)
	}
	addr := labtest.FreeAddr(t)
	return acceptanceConfig(t, addr, "/summarize?doc=5", java, "-cp", classes, "Server", "--addr", addr, "--mode", mode)
}

// runProfile reads the run's CPU profile.
func runProfile(t *testing.T, r *runfmt.Run, dir string) *profile.Profile {
	t.Helper()
	for _, ref := range r.Profiles {
		if ref.Type != runfmt.ProfileCPU {
			continue
		}
		f, err := os.Open(filepath.Join(dir, ref.File))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		p, err := profile.Parse(f)
		if err != nil {
			t.Fatalf("%s: %v", ref.File, err)
		}
		return p
	}
	t.Fatalf("no CPU profile among %+v (warnings %q)", r.Profiles, r.Warnings)
	return nil
}

// funcAt is the name of the function at a in s.
func funcAt(s *profile.Sample, a ownership.At) string {
	ln := s.Location[a.Location].Line
	if a.Line >= len(ln) || ln[a.Line].Function == nil {
		return ""
	}
	return ln[a.Line].Function.Name
}

// stackHas reports whether a frame of s is named with sub.
func stackHas(s *profile.Sample, sub string) bool {
	for _, loc := range s.Location {
		for _, ln := range loc.Line {
			if ln.Function != nil && strings.Contains(ln.Function.Name, sub) {
				return true
			}
		}
	}
	return false
}

func TestAcceptanceJVMReachesUserMethod(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs a JVM service under load")
	}
	cfg := javaService(t, "buggy")
	cfg.Load.Duration, cfg.Warmup = 4*time.Second, 2*time.Second
	r, dir := runAcceptance(t, cfg)
	p := runProfile(t, r, dir)
	t.Logf("profilers %+v; notes %q", r.Profiling.Profilers, r.Profiling.Notes)
	if slices.ContainsFunc(r.Profiling.Notes, func(n string) bool { return strings.Contains(n, "async-profiler is not installed") }) {
		t.Skip("async-profiler not installed (.ci/setup installs it): sampled with perf, which shows methods still interpreted as Interpreter")
	}
	m, err := ownership.New(ownership.Spec{Runtime: ownership.LangJVM})
	if err != nil {
		t.Fatal(err)
	}
	c := m.ClassifyProfile(p)
	owned := map[string]int64{}
	work := map[ownership.Work]int64{}
	var total, withCaller int64
	for _, s := range p.Sample {
		v := s.Value[0]
		total += v
		work[c.Work(s)] += v
		if ch := c.Charge(s); ch.Owner.Location >= 0 {
			owned[funcAt(s, ch.Owner)] += v
		}
		if stackHas(s, "Server.summarize") && stackHas(s, "lambda$main$") {
			withCaller += v
		}
	}
	fns := make([]string, 0, len(owned))
	for f := range owned {
		fns = append(fns, f)
	}
	sort.Slice(fns, func(i, j int) bool { return owned[fns[i]] > owned[fns[j]] })
	top := fns[:min(3, len(fns))]
	t.Logf("user functions by CPU owned: %v; runtime work %v of %d", top, work, total)
	if !slices.ContainsFunc(top, func(f string) bool { return strings.Contains(f, "Server.summarize") }) {
		t.Errorf("Server.summarize is not among the top 3 user functions %v", top)
	}
	if withCaller == 0 {
		for _, s := range p.Sample {
			if stackHas(s, "Server.summarize") {
				t.Logf("stack: %s", stackString(s))
			}
		}
		t.Error("no sample of Server.summarize under its caller (Server.lambda$main$): compiled frames have no callers")
	}
	if !slices.ContainsFunc(r.Profiling.Notes, func(n string) bool { return strings.Contains(n, "-XX:+PreserveFramePointer") }) {
		t.Errorf("the profile's notes %q do not say what perflab added to the JVM's launch", r.Profiling.Notes)
	}
	if work[ownership.JIT] == 0 {
		t.Errorf("no JIT compiler samples (runtime work %v): the compiler threads are not told apart", work)
	}
}

// stackString is s's stack, leaf first, for a failure's message.
func stackString(s *profile.Sample) string {
	var names []string
	for _, loc := range s.Location {
		for _, ln := range loc.Line {
			if ln.Function != nil {
				names = append(names, ln.Function.Name)
			}
		}
	}
	return strings.Join(names, " ← ")
}
