package runfmt

import (
	"encoding"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// testVocabulary is one vocabulary of the package seen through
// reflection, for the tests.
type testVocabulary struct {
	name  string // the concept ("ledger part")
	typ   string // its words' Go type ("LedgerPart")
	words []string
	open  bool
	parse func(string) (string, error)
	// text is a new zero word, nil when its type does not read itself
	// from run.json.
	text func() encoding.TextUnmarshaler
}

func testVocabularies(t *testing.T) []testVocabulary {
	t.Helper()
	var out []testVocabulary
	for _, v := range vocabularies {
		rv := reflect.ValueOf(v)
		wordType := rv.Elem().FieldByName("words").Type().Elem()
		tv := testVocabulary{
			name: rv.Elem().FieldByName("name").String(), typ: wordType.Name(),
			words: rv.MethodByName("Strings").Call(nil)[0].Interface().([]string),
			open:  !rv.Elem().FieldByName("open").IsNil(),
		}
		parse := rv.MethodByName("Parse")
		tv.parse = func(s string) (string, error) {
			out := parse.Call([]reflect.Value{reflect.ValueOf(s)})
			err, _ := out[1].Interface().(error)
			return out[0].String(), err
		}
		if reflect.PointerTo(wordType).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
			tv.text = func() encoding.TextUnmarshaler { return reflect.New(wordType).Interface().(encoding.TextUnmarshaler) }
		}
		out = append(out, tv)
	}
	if len(out) < 25 {
		t.Fatalf("runfmt registers %d vocabularies; want its 25 or more", len(out))
	}
	return out
}

// TestVocabulariesRefuseUnknownWords: each word parses to itself and reads
// from run.json; an unknown word (a typo, another case, the empty word for
// Parse) is refused with an error that names it, the vocabulary and its
// words. An open vocabulary's other words are TestProfilerNames'.
func TestVocabulariesRefuseUnknownWords(t *testing.T) {
	for _, v := range testVocabularies(t) {
		if v.text == nil {
			t.Errorf("%s: *%s has no UnmarshalText: run.json would read any word", v.name, v.typ)
			continue
		}
		seen := map[string]bool{}
		for _, w := range v.words {
			if w == "" || seen[w] || strings.TrimSpace(w) != w {
				t.Errorf("%s: word %q is empty, repeated or padded", v.name, w)
			}
			seen[w] = true
			if got, err := v.parse(w); err != nil || got != w {
				t.Errorf("%s: Parse(%q) = %v, %v", v.name, w, got, err)
			}
			if err := v.text().UnmarshalText([]byte(w)); err != nil {
				t.Errorf("%s: UnmarshalText(%q): %v", v.name, w, err)
			}
		}
		for _, bad := range []string{"", "x" + v.words[0], strings.ToUpper(v.words[0]), v.words[0] + " "} {
			if v.open && bad == "x"+v.words[0] {
				continue
			}
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

// TestVocabularyIndex: a word's index is its place in the list; a word
// not listed has none.
func TestVocabularyIndex(t *testing.T) {
	for i, k := range TimeKinds.List() {
		if got := TimeKinds.Index(k); got != i {
			t.Errorf("TimeKinds.Index(%s) = %d; want %d", k, got, i)
		}
	}
	if got := TimeKinds.Index("xrunning"); got != -1 || TimeKinds.Contains("xrunning") {
		t.Errorf("an unknown kind has index %d; want -1, not contained", got)
	}
	l := TimeKinds.List()
	l[0] = "changed"
	if TimeKinds.List()[0] != TimeRunning {
		t.Errorf("changing List's result changed the vocabulary")
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
	if len(want) != len(Waits.List()) {
		t.Fatalf("the test names %d waits; runfmt has %d", len(want), len(Waits.List()))
	}
	kinds := map[TimeKind]bool{}
	for _, w := range Waits.List() {
		if w.Kind() != want[w] {
			t.Errorf("wait %s is of kind %s; want %s", w, w.Kind(), want[w])
		}
		kinds[w.Kind()] = true
	}
	for _, k := range TimeKinds.List() {
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
	for _, s := range TimeSources.List() {
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
	for _, name := range append(Profilers.Strings(), "yourkit", "fake", "x", "jfr-2") {
		if p, err := Profilers.Parse(name); err != nil || string(p) != name {
			t.Errorf("Profilers.Parse(%q) = %v, %v", name, p, err)
		}
		var p Profiler
		if err := p.UnmarshalText([]byte(name)); err != nil || string(p) != name {
			t.Errorf("UnmarshalText(%q) = %v, %v", name, p, err)
		}
	}
	for _, bad := range []string{"", "PPROF", "pprof ", "perf+v8", "2perf", "-perf", "your kit", "go-trace", "perf-sched", strings.Repeat("a", 33)} {
		_, err := Profilers.Parse(bad)
		var ue *UnknownError
		if !errors.As(err, &ue) || ue.Vocabulary != "profiler" || ue.Word != bad || !strings.Contains(err.Error(), strings.Join(Profilers.Strings(), ", ")) {
			t.Errorf("Profilers.Parse(%q) error %v; want one naming the word and perflab's profilers", bad, err)
		}
		var p Profiler
		if err := p.UnmarshalText([]byte(bad)); bad != "" && !errors.As(err, &ue) {
			t.Errorf("UnmarshalText(%q) = %v; want it refused", bad, err)
		}
	}
}
