package runfmt

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocListsTheVocabularies: the package doc lists every vocabulary
// with its words as its declaration does, in their order.
func TestDocListsTheVocabularies(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.ReplaceAll(string(src), "\n//    ", "")
	want := map[string][]string{}
	for _, v := range testVocabularies(t) {
		want[v.typ] = v.words
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
