package runfmt

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocListsTheVocabularies: the package doc lists each vocabulary's
// words as its declarations do, in their order.
func TestDocListsTheVocabularies(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.ReplaceAll(string(src), "\n//    ", "")
	want := map[string][]string{
		"Profiler": Words(Profilers()), "ProfilerRole": Words(ProfilerRoles()), "ProfileType": Words(ProfileTypes()),
		"TimeSource": Words(TimeSources()), "TimeKind": Words(TimeKinds()), "Wait": Words(Waits()),
		"Runtime": Words(Runtimes()), "FindingKind": Words(FindingKinds()), "MetricName": Words(MetricNames()),
		"StackSource": Words(StackSources()), "Figure": Words(FigureNames()), "Setting": Words(SettingNames()),
		"Role": Words(Roles()), "Advice": Words(Advices()), "LedgerPart": Words(LedgerParts()), "LedgerSource": Words(LedgerSources()),
		"CPUOwner": Words(CPUOwners()), "NoiseCause": Words(NoiseCauses()), "RunFigure": Words(RunFigures()),
		"DegradeKind": Words(DegradeKinds()), "PartialKind": Words(PartialKinds()), "ReachWhy": Words(ReachWhys()),
		"ReachFix": Words(ReachFixes()), "CoverageHint": Words(CoverageHints()), "StuckKind": Words(StuckKinds()),
	}
	item := regexp.MustCompile(`(?m)^//   - (\w+) \(\w+\.go\): ([^.]*)\.`)
	seen := 0
	for _, m := range item.FindAllStringSubmatch(doc, -1) {
		ws, ok := want[m[1]]
		if !ok {
			continue
		}
		seen++
		if got := strings.Split(m[2], ", "); !slices.Equal(got, ws) {
			t.Errorf("doc.go lists %s as %v; its declaration has %v", m[1], got, ws)
		}
	}
	if seen != len(want) {
		t.Errorf("doc.go lists %d of the %d vocabularies", seen, len(want))
	}
}
