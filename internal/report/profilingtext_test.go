package report

import (
	"bytes"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

func TestVerdictProfiling(t *testing.T) {
	r := &runfmt.Run{ID: "x", Status: runfmt.StatusComplete,
		Target: &runfmt.TargetSummary{CPUCoresMean: 1.8, CPUMsPerRequest: 3},
		Hot:    []runfmt.HotFunc{{Function: "run", File: "/usr/lib/gems/puma/cluster.rb", UserCode: true, CPUUsPerRequest: 3000}},
		Profiling: &runfmt.Profiling{
			Notes:              []string{"Ruby service sampled with perf: rbspy is not installed (cargo install rbspy)"},
			NotRepresentative:  "the CPU profile accounts for 1% of the CPU measured",
			ProfilerCPUSeconds: 0.1, MeasuredCPUSeconds: 5, ProfilerOverhead: 0.02,
			Processes: []runfmt.ProcessProfile{
				{PID: 10, Runtime: "ruby", Profiler: "perf", CPUSeconds: 0.01},
				{PID: 11, Runtime: "ruby", Profiler: "perf", CPUSeconds: 2.4},
				{PID: 12, Runtime: "ruby", Profiler: "perf", CPUSeconds: 0},
			},
		}}
	var b bytes.Buffer
	if err := WriteVerdict(&b, r, "/tmp/run"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Profiling:\tRuby service sampled with perf", "NOT REPRESENTATIVE:", "3 processes (ruby) in the profile: 11 2.40 s of CPU (perf)", "Sampling cost:\t0.10 s of CPU for the profilers, 2.0%"} {
		if !strings.Contains(out, want) {
			t.Errorf("verdict lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "cluster.rb") || strings.Contains(out, "Top user-code functions") {
		t.Errorf("a profile that is not representative still names functions:\n%s", out)
	}
	if i, j := strings.Index(out, "NOT REPRESENTATIVE"), strings.Index(out, "CPU per request"); i > j {
		t.Errorf("the profiling notes come after the figures; want them at the top:\n%s", out)
	}
}

// TestReportsSayTheProfileIsNotRepresentative: report.html and the
// markdown summary say at the top what limits the CPU profile, as the
// text verdict does, and do not list the functions of a profile that does
// not account for the CPU measured as where the CPU goes.
func TestReportsSayTheProfileIsNotRepresentative(t *testing.T) {
	r := sampleRun()
	r.Hot = append(r.Hot, runfmt.HotFunc{Function: "run", File: "/usr/lib/gems/puma/cluster.rb", UserCode: true, CPUUsPerRequest: 3000, CumPct: 90})
	r.Profiling = &runfmt.Profiling{
		Notes:             []string{"Ruby service sampled with perf: rbspy is not installed"},
		Unrepresentative:  &runfmt.Unrepresentative{Samples: 5, Hint: runfmt.HintProcesses},
		ProfileCPUSeconds: 0.05, MeasuredCPUSeconds: 5,
	}
	var b strings.Builder
	if err := writeHTML(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	head, _, _ := strings.Cut(page, `id="summary"`)
	for _, want := range []string{"rbspy is not installed", "accounts for 1.0% of the CPU measured"} {
		if !strings.Contains(head, want) {
			t.Errorf("report.html does not say %q above its figures", want)
		}
	}
	_, hot, _ := strings.Cut(page, `<section id="hot">`)
	hot, _, _ = strings.Cut(hot, "</section>")
	if strings.Contains(page, "cluster.rb") || strings.Contains(hot, "<table") || !strings.Contains(hot, "Not listed") {
		t.Error("report.html lists the hot functions of a profile that is not representative")
	}
	b.Reset()
	if err := WriteRunMarkdown(&b, r, "", MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if !strings.Contains(md, "rbspy is not installed") || !strings.Contains(md, "accounts for 1.0% of the CPU measured") {
		t.Errorf("the markdown summary does not say what limits the profile:\n%s", md)
	}
	if strings.Contains(md, "Where the CPU goes") {
		t.Errorf("the markdown summary lists where the CPU goes from a profile that is not representative:\n%s", md)
	}
	// Said once: a run degraded for it states it in its status line.
	r.Status, r.Degradations = runfmt.StatusDegraded, []runfmt.Degradation{{Profile: runfmt.ProfileCPU, Why: runfmt.DegradeNotRepresentative}}
	b.Reset()
	if err := writeHTML(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "accounts for 1.0% of the CPU measured"); n != 2 { // the status line and the hot section's note
		t.Errorf("report.html of a degraded run says the profile is not representative %d times; want the status line and the hot section", n)
	}
}

// TestVerdictOwnership: stacks that cannot reach the user's code are said
// at the top with the fix, and their functions are not the verdict; the
// runtime's own work is said with what to do; the library under a user
// function is named under it.
func TestVerdictOwnership(t *testing.T) {
	r := &runfmt.Run{ID: "x", Status: runfmt.StatusComplete,
		Target: &runfmt.TargetSummary{CPUCoresMean: 1, CPUMsPerRequest: 3},
		Hot: []runfmt.HotFunc{{Function: "regex_automata::meta::Regex::new", UserCode: true, CPUUsPerRequest: 3000,
			Library: "regex-automata 0.4.9", LibraryUsPerRequest: 2000}},
		Profiling: &runfmt.Profiling{
			StacksUnreachable: "71% of the samples have at most 2 frames (median 1): the stacks stop before reaching your code",
			StacksRemedy:      `rebuild with frame pointers: RUSTFLAGS="-C force-frame-pointers=yes"`,
			RuntimeWork:       []runfmt.RuntimeWork{{Work: "jit", Share: 0.31, Remedy: "measure after a longer warm-up (--warmup)"}, {Work: "runtime", Share: 0.2}},
		}}
	var b bytes.Buffer
	if err := WriteVerdict(&b, r, "/tmp/run"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"STACKS DO NOT REACH YOUR CODE:", "force-frame-pointers=yes", "The JIT compiler 31% of the CPU: measure after"} {
		if !strings.Contains(out, want) {
			t.Errorf("verdict lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Regex::new") || strings.Contains(out, "other work") {
		t.Errorf("functions of unreachable stacks, or runtime work without a remedy, in the verdict:\n%s", out)
	}
	if i, j := strings.Index(out, "STACKS DO NOT REACH"), strings.Index(out, "CPU per request"); i > j {
		t.Errorf("unreachable stacks said after the figures; want them at the top:\n%s", out)
	}
	// A run before schema 5 whose perf stacks of native code did not
	// reach it said so in its notes, first.
	r.Profiling.Notes = []string{"the stacks do not reach your code, so no function of yours can be ranked: " + r.Profiling.StacksUnreachable}
	r.Profiling.Processes = []runfmt.ProcessProfile{{PID: 7, Runtime: runfmt.RuntimeNative, Profiler: runfmt.ProfilerPerf}}
	r.Profiles = []runfmt.ProfileRef{{Type: runfmt.ProfileCPU, File: "profiles/cpu.pb.gz", Stacks: &runfmt.Stacks{Reason: r.Profiling.StacksUnreachable}}}
	b.Reset()
	if err := WriteVerdict(&b, r, "/tmp/run"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "STACKS DO NOT REACH") {
		t.Errorf("the stacks said twice (the profiler's note says it):\n%s", b.String())
	}
	r.Profiling = nil
	b.Reset()
	if err := WriteVerdict(&b, r, "/tmp/run"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "library regex-automata 0.4.9 under your") {
		t.Errorf("the hot table does not name the library under the user's function:\n%s", b.String())
	}
}

// TestVerdictRuntimeWork: a JVM's JIT, GC and interpreter work is said
// among the CPU figures, each with its share of the CPU profile (a small
// one too) or why it was not measured, the rest's share so that they add
// up, and what to do about the work that costs something.
func TestVerdictRuntimeWork(t *testing.T) {
	r := &runfmt.Run{ID: "x", Status: runfmt.StatusComplete,
		Target: &runfmt.TargetSummary{CPUCoresMean: 1, CPUMsPerRequest: 3},
		Profiling: &runfmt.Profiling{RuntimeWork: []runfmt.RuntimeWork{
			{Work: runfmt.WorkJIT, Share: 0.173, Remedy: "measure after a longer warm-up (--warmup)"},
			{Work: runfmt.WorkGC, Share: 0.004},
			{Work: runfmt.WorkInterpreter, NotMeasured: "the profile names no Java method"},
		}}}
	var b bytes.Buffer
	if err := WriteVerdict(&b, r, "/tmp/run"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Runtime work:", "JIT compiler 17%", "GC 0.4%", "the rest (the program's and its libraries' code) 82% of the CPU profile",
		"interpreter not measured (the profile names no Java method)", "The JIT compiler 17% of the CPU: measure after",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("verdict lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Garbage collection 0.4%") {
		t.Errorf("a remedy for work without one:\n%s", out)
	}
	if i, j, k := strings.Index(out, "CPU per request"), strings.Index(out, "Runtime work:"), strings.Index(out, "Peak RSS"); j < i || j > k {
		t.Errorf("runtime work not said after the CPU per request, among the CPU figures:\n%s", out)
	}
}

// TestVerdictStackReach: stacks that do not reach the user's code are
// said in words made from the run's figures, with the fix in the
// service's language; perf's stacks of native code are said first among
// the profiling notes, with the CPU per module, and not again.
func TestVerdictStackReach(t *testing.T) {
	reach := runfmt.StackReach{Why: runfmt.ReachShallow, Share: 0.71, ShallowFrames: 2, MedianFrames: 1, Fix: runfmt.FixUnwind, Lang: "rust",
		Binary: "/srv/app", FramePointerShare: 0.04}
	r := &runfmt.Run{ID: "x", Status: runfmt.StatusComplete, Target: &runfmt.TargetSummary{CPUCoresMean: 1, CPUMsPerRequest: 3},
		Profiling: &runfmt.Profiling{StackReach: &reach, Notes: []string{"perf unwinds the stacks with DWARF"}}}
	const why = "71% of the samples have at most 2 frames (median 1): the stacks stop before reaching your code; " +
		"/srv/app appears to be built without frame pointers (4.0% of its functions set one up; a heuristic)"
	const fix = `rebuild with frame pointers: RUSTFLAGS="-C force-frame-pointers=yes" cargo build --release; or record with DWARF unwinding (perf record --call-graph dwarf), which costs more per sample`
	text := func() string {
		var b bytes.Buffer
		if err := WriteVerdict(&b, r, "/tmp/run"); err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(b.String()), " ")
	}
	if out := text(); !strings.Contains(out, "STACKS DO NOT REACH YOUR CODE: "+why+"; no finding is ranked from them. Fix: "+fix) {
		t.Errorf("verdict lacks the stacks' reach in words:\n%s", out)
	}
	r.Profiling.Processes = []runfmt.ProcessProfile{{PID: 7, Runtime: runfmt.RuntimeNative, Profiler: runfmt.ProfilerPerf}}
	r.Profiles = []runfmt.ProfileRef{{Type: runfmt.ProfileCPU, File: "profiles/cpu.pb.gz",
		Stacks: &runfmt.Stacks{StackReach: reach, Modules: []runfmt.ModuleCPU{{Module: "app", Share: 0.78}, {Module: "libc.so.6", Share: 0.19}}}}}
	r.Profiles[0].Stacks.SymbolsLang = "rust"
	out := text()
	note := "Profiling: the stacks do not reach your code, so no function of yours can be ranked: " + why +
		"; keep symbols: do not strip the binary (Cargo.toml's [profile.release] strip = false, cargo's default; debug = 1 adds file and line information); and " + fix +
		". CPU by module: app 78%, libc.so.6 19% Profiling: perf unwinds"
	if !strings.Contains(out, note) || strings.Contains(out, "STACKS DO NOT REACH") {
		t.Errorf("perf's stacks of native code: want the note first, with the symbols first in the fix, and said once:\n%s", out)
	}
}
