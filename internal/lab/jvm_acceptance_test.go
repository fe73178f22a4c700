package lab

// Acceptance test of a JVM service launched as the user would start it
// (`java -cp DIR Server`): perflab's run must reach the user's method that
// compiles a Pattern per call, with its callers, rank it among the top 3
// user functions, and print the JVM's own work (JIT compiler, GC,
// interpreter) among the CPU figures, each with its share or why it was
// not measured.

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
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// javaService is the config of the javapattern service in mode, compiled
// with javac into a temporary directory; the test skips, saying why, when
// the JDK is missing.
func javaService(t *testing.T, mode string) Config {
	t.Helper()
	javac := labtest.NeedTool(t, "javac", "")
	java := labtest.NeedTool(t, "java", "")
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
		labtest.SkipMissing(t, "async-profiler", "async-profiler not installed (.ci/setup installs it): sampled with perf, which shows methods still interpreted as Interpreter")
	}
	m, err := ownership.New(ownership.Spec{Runtime: ownership.LangJVM})
	if err != nil {
		t.Fatal(err)
	}
	c := m.ClassifyProfile(p)
	owned := map[string]int64{}
	work := map[ownership.Work]int64{}
	var total, withCaller int64
	compilerFrames := 0
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
		// libjvm's frames tell the compiler's work without the thread's
		// name, as perf's do (the VM thread's collections need them).
		if anon := *s; stackHas(s, "C2Compiler::") {
			anon.Label = nil
			compilerFrames++
			if w := c.Work(&anon); w != ownership.JIT {
				t.Errorf("C2 compiler's sample without its thread's name: work %v, want jit: %s", w, stackString(s))
			}
		}
	}
	if compilerFrames == 0 {
		t.Error("no sample with C2Compiler:: frames: libjvm's functions are not named")
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
	checkUserTop3(t, r, "Server.summarize")
	shares := checkJVMRuntimeWork(t, r, dir)
	if shares[runfmt.WorkJIT].Share == 0 || shares[runfmt.WorkInterpreter].NotMeasured != "" {
		t.Errorf("runtime work %+v: async-profiler measures the JIT compiler's share (its threads) and the interpreter's (its annotations)", shares)
	}
}

// TestAcceptanceJVMRuntimeWorkPerf: sampled with perf (async-profiler's
// fallback), the JVM's JIT, GC and interpreter shares are still printed,
// each with its figure or why perf could not tell it.
func TestAcceptanceJVMRuntimeWorkPerf(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs a JVM service under load")
	}
	cfg := javaService(t, "buggy")
	cfg.Load.Duration, cfg.Warmup = 4*time.Second, 2*time.Second
	cfg.Profiler = ProfilerChoice(runfmt.ProfilerPerf)
	r, dir := runAcceptance(t, cfg)
	t.Logf("profilers %+v; notes %q", r.Profiling.Profilers, r.Profiling.Notes)
	shares := checkJVMRuntimeWork(t, r, dir)
	if shares[runfmt.WorkJIT].NotMeasured != "" {
		t.Errorf("runtime work %+v: perf names the JIT compiler's threads", shares)
	}
}

// checkUserTop3 checks that the run's verdict ranks the user function fn
// among its top 3 user-code functions.
func checkUserTop3(t *testing.T, r *runfmt.Run, fn string) {
	t.Helper()
	var user []string
	for _, h := range r.Hot {
		if h.UserCode {
			user = append(user, h.Function)
		}
	}
	top := user[:min(3, len(user))]
	if !slices.ContainsFunc(top, func(f string) bool { return strings.Contains(f, fn) }) {
		t.Errorf("%s is not among the verdict's top 3 user-code functions %v", fn, top)
	}
}

// checkJVMRuntimeWork checks that the run records the JVM's JIT, GC and
// interpreter work, each with a share or why it was not measured, the
// shares adding up to at most the profile, and that the verdict prints
// them among its CPU figures; it returns them by kind.
func checkJVMRuntimeWork(t *testing.T, r *runfmt.Run, dir string) map[string]runfmt.RuntimeWork {
	t.Helper()
	shares := map[string]runfmt.RuntimeWork{}
	sum := 0.0
	for _, w := range r.Profiling.RuntimeWork {
		shares[w.Work] = w
		sum += w.Share
		if w.Share < 0 || w.NotMeasured != "" && w.Share != 0 {
			t.Errorf("runtime work %+v: a share of 0..1, or why it was not measured", w)
		}
	}
	if sum > 1+1e-9 {
		t.Errorf("runtime work %+v adds up to %.3f of the profile", r.Profiling.RuntimeWork, sum)
	}
	var b strings.Builder
	if err := report.WriteVerdict(&b, r, dir); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	i := strings.Index(out, "Runtime work:")
	if i < 0 || i < strings.Index(out, "CPU per request:") {
		t.Errorf("the verdict does not print the runtime work among its CPU figures:\n%s", out)
	}
	for _, k := range []struct{ work, label string }{
		{runfmt.WorkJIT, "JIT compiler"}, {runfmt.WorkGC, "GC"}, {runfmt.WorkInterpreter, "interpreter"},
	} {
		w, ok := shares[k.work]
		if !ok {
			t.Errorf("no %s work in run.json's runtime_work %+v", k.work, r.Profiling.RuntimeWork)
			continue
		}
		want := k.label + " " + units.FormatShare(w.Share)
		if w.NotMeasured != "" {
			want = k.label + " not measured (" + w.NotMeasured
		}
		if i < 0 || !strings.Contains(out[i:], want) {
			t.Errorf("the verdict's runtime work lacks %q:\n%s", want, out)
		}
	}
	t.Logf("runtime work %+v\n%s", r.Profiling.RuntimeWork, out)
	return shares
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
