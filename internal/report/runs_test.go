package report

import (
	"strings"
	"testing"
	"unicode/utf8"

	"perflab/internal/runfmt"
)

// TestRunsTableShortensOnACharacter: a long partial reason is cut on a
// character boundary, never into invalid UTF-8.
func TestRunsTableShortensOnACharacter(t *testing.T) {
	var b strings.Builder
	runs := []runfmt.RunListing{{ID: "1", Name: "api", Status: runfmt.StatusPartial, PartialReason: strings.Repeat("—", 80)}}
	if err := WriteRunsTable(&b, runs); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !utf8.ValidString(out) || !strings.Contains(out, "…") {
		t.Errorf("runs table with a long partial reason: %q; want it shortened on a character, ending in …", out)
	}
}
