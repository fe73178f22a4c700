package runfmt

import (
	"encoding"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// vocabulary is one vocabulary seen through its functions, for the tests.
type testVocabulary struct {
	name  string
	words []string
	parse func(string) (fmt.Stringer, error)
	text  func() encoding.TextUnmarshaler
}

func testVocabularies() []testVocabulary {
	return []testVocabulary{
		vocabOf("profiler role", ProfilerRoles(), ParseProfilerRole),
		vocabOf("profile type", ProfileTypes(), ParseProfileType),
		vocabOf("time source", TimeSources(), ParseTimeSource),
		vocabOf("kind of wall time", TimeKinds(), ParseTimeKind),
		vocabOf("wait", Waits(), ParseWait),
		vocabOf("runtime", Runtimes(), ParseRuntime),
		vocabOf("finding kind", FindingKinds(), ParseFindingKind),
		vocabOf("metric", MetricNames(), ParseMetric),
		vocabOf("thread state", ThreadStates(), ParseThreadState),
		vocabOf("ledger part", LedgerParts(), ParseLedgerPart),
		vocabOf("ledger source", LedgerSources(), ParseLedgerSource),
		vocabOf("cpu owner", CPUOwners(), ParseCPUOwner),
		vocabOf("figure", FigureNames(), ParseFigure),
		vocabOf("setting", SettingNames(), ParseSetting),
		vocabOf("role", Roles(), ParseRole),
		vocabOf("advice", Advices(), ParseAdvice),
		vocabOf("noise cause", NoiseCauses(), ParseNoiseCause),
		vocabOf("run figure", RunFigures(), ParseRunFigure),
		vocabOf("degradation", DegradeKinds(), ParseDegradeKind),
		vocabOf("partial kind", PartialKinds(), ParsePartialKind),
		vocabOf("stack reach", ReachWhys(), ParseReachWhy),
		vocabOf("stack fix", ReachFixes(), ParseReachFix),
		vocabOf("coverage hint", CoverageHints(), ParseCoverageHint),
		vocabOf("stuck kind", StuckKinds(), ParseStuckKind),
	}
}

func vocabOf[T interface {
	~string
	fmt.Stringer
}, P interface {
	*T
	encoding.TextUnmarshaler
}](name string, ws []T, parse func(string) (T, error)) testVocabulary {
	v := testVocabulary{name: name, text: func() encoding.TextUnmarshaler { return P(new(T)) }}
	for _, w := range ws {
		v.words = append(v.words, string(w))
	}
	v.parse = func(s string) (fmt.Stringer, error) { return parse(s) }
	return v
}

// TestVocabulariesRefuseUnknownWords: each word parses to itself and reads
// from run.json; an unknown word (a typo, another case, the empty word for
// Parse) is refused with an error that names it, the vocabulary and its
// words.
func TestVocabulariesRefuseUnknownWords(t *testing.T) {
	for _, v := range testVocabularies() {
		seen := map[string]bool{}
		for _, w := range v.words {
			if w == "" || seen[w] || strings.TrimSpace(w) != w {
				t.Errorf("%s: word %q is empty, repeated or padded", v.name, w)
			}
			seen[w] = true
			if got, err := v.parse(w); err != nil || got.String() != w {
				t.Errorf("%s: Parse(%q) = %v, %v", v.name, w, got, err)
			}
			if err := v.text().UnmarshalText([]byte(w)); err != nil {
				t.Errorf("%s: UnmarshalText(%q): %v", v.name, w, err)
			}
		}
		for _, bad := range []string{"", "x" + v.words[0], strings.ToUpper(v.words[0]), v.words[0] + " "} {
			_, err := v.parse(bad)
			var ue *UnknownError
			if !errors.As(err, &ue) || ue.Vocabulary != v.name || ue.Word != bad ||
				!strings.Contains(err.Error(), fmt.Sprintf("unknown %s %q", v.name, bad)) || !strings.Contains(err.Error(), strings.Join(v.words, ", ")) {
				t.Errorf("%s: Parse(%q) error %v; want one naming the word and the %d known", v.name, bad, err, len(v.words))
			}
			if bad != "" {
				if err := v.text().UnmarshalText([]byte(bad)); !errors.As(err, &ue) {
					t.Errorf("%s: UnmarshalText(%q) = %v; want it refused", v.name, bad, err)
				}
			}
		}
		if err := v.text().UnmarshalText(nil); err != nil {
			t.Errorf("%s: the empty word (not set) from run.json: %v", v.name, err)
		}
	}
}

// TestWaitsAndKinds: every wait belongs to a kind of wall time, every kind
// has a wait of its own, and the kinds' waits are as the time split reports
// them.
func TestWaitsAndKinds(t *testing.T) {
	want := map[Wait]TimeKind{
		WaitCPU: TimeRunning, WaitRunnable: TimeRunnable, WaitClient: TimeNetwork, WaitDownstream: TimeNetwork,
		WaitLock: TimeSync, WaitChannel: TimeSync, WaitGroup: TimeSync, WaitCond: TimeSync, WaitPool: TimeSync, WaitSync: TimeSync,
		WaitSyscall: TimeSyscall, WaitGCAssist: TimeGC, WaitGCWait: TimeGC, WaitGCStop: TimeGC, WaitSleep: TimeSleep, WaitOther: TimeOther,
	}
	if len(want) != len(Waits()) {
		t.Fatalf("the test names %d waits; runfmt has %d", len(want), len(Waits()))
	}
	kinds := map[TimeKind]bool{}
	for _, w := range Waits() {
		if w.Kind() != want[w] {
			t.Errorf("wait %s is of kind %s; want %s", w, w.Kind(), want[w])
		}
		kinds[w.Kind()] = true
	}
	for _, k := range TimeKinds() {
		if !kinds[k] {
			t.Errorf("kind %s has no wait", k)
		}
	}
	for _, w := range []Wait{WaitCPU, WaitRunnable, WaitGCAssist, WaitGCStop, WaitOther} {
		if w.Parks() {
			t.Errorf("%s parks: the runnable time after it would be charged to it", w)
		}
	}
	for _, w := range []Wait{WaitLock, WaitDownstream, WaitSleep, WaitGCWait, WaitSyscall} {
		if !w.Parks() {
			t.Errorf("%s does not park", w)
		}
	}
}

// TestTimeSourcesAndProfilers: each time source is recorded by a profiler.
func TestTimeSourcesAndProfilers(t *testing.T) {
	want := map[TimeSource]Profiler{TimeSourceGoTrace: ProfilerPprof, TimeSourcePySpy: ProfilerPySpy,
		TimeSourceRbSpy: ProfilerRbSpy, TimeSourcePerfSched: ProfilerPerf}
	for _, s := range TimeSources() {
		if s.Profiler() != want[s] {
			t.Errorf("time source %s: profiler %s; want %s", s, s.Profiler(), want[s])
		}
	}
}

func TestProfilerSet(t *testing.T) {
	s := NewProfilerSet(ProfilerPySpy, ProfilerPerf, ProfilerPySpy)
	if s.String() != "perf+py-spy" || s.Len() != 2 || !s.Has(ProfilerPerf) || s.Has(ProfilerRbSpy) || s.Has("") {
		t.Errorf("set of py-spy, perf, py-spy: %q (%d); want perf+py-spy", s, s.Len())
	}
	if z := NewProfilerSet(); z.String() != "" || z.Len() != 0 || s.With("No pe") != s || s.With("perf+v8") != s {
		t.Errorf("the empty set %q; a word that names no profiler changed a set", z)
	}
	if got := s.With("yourkit"); got.String() != "perf+py-spy+yourkit" || !got.Has("yourkit") || got.Len() != 3 {
		t.Errorf("with a registered profiler: %q; want perf+py-spy+yourkit", got)
	}
}

// TestProfilerNames: perflab's own profilers and any well-formed name of
// another (a registered profiler's) parse and read from run.json; an
// ill-formed one, or a time source's word, is refused with an error that
// names it and perflab's profilers.
func TestProfilerNames(t *testing.T) {
	for _, name := range append(Words(Profilers()), "yourkit", "fake", "x", "jfr-2") {
		if p, err := ParseProfiler(name); err != nil || p.String() != name {
			t.Errorf("ParseProfiler(%q) = %v, %v", name, p, err)
		}
		var p Profiler
		if err := p.UnmarshalText([]byte(name)); err != nil || string(p) != name {
			t.Errorf("UnmarshalText(%q) = %v, %v", name, p, err)
		}
	}
	for _, bad := range []string{"", "PPROF", "pprof ", "perf+v8", "2perf", "-perf", "your kit", "go-trace", "perf-sched", strings.Repeat("a", 33)} {
		_, err := ParseProfiler(bad)
		var ue *UnknownError
		if !errors.As(err, &ue) || ue.Vocabulary != "profiler" || ue.Word != bad || !strings.Contains(err.Error(), strings.Join(Words(Profilers()), ", ")) {
			t.Errorf("ParseProfiler(%q) error %v; want one naming the word and perflab's profilers", bad, err)
		}
		var p Profiler
		if err := p.UnmarshalText([]byte(bad)); bad != "" && !errors.As(err, &ue) {
			t.Errorf("UnmarshalText(%q) = %v; want it refused", bad, err)
		}
	}
}
