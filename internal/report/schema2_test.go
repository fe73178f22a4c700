package report

import (
	"bytes"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

// TestPreviousSchemaRunRenders: a run.json written by perflab at schema
// version 2 (a demo run; its host's names and paths generalised) still
// reads, and renders as that perflab rendered it: the text verdict and the
// markdown byte for byte (the goldens are that version's output), the HTML
// report with its findings and time split.
func TestPreviousSchemaRunRenders(t *testing.T) {
	const dir = "testdata/schema2"
	r, err := runfmt.ReadFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.SchemaVersion != 2 || len(r.Findings) == 0 || r.Time == nil || len(r.Profiles) == 0 {
		t.Fatalf("schema %d, %d findings, time %v, %d profiles: not the schema 2 demo run", r.SchemaVersion, len(r.Findings), r.Time, len(r.Profiles))
	}
	var b bytes.Buffer
	for _, err := range []error{WriteHeadline(&b, r), WriteLoadText(&b, r.Load), WriteVerdict(&b, r, dir)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	golden(t, ".verdict.txt", b.Bytes())
	b.Reset()
	if err := WriteRunMarkdown(&b, r, dir, MarkdownOptions{RunsDir: "perflab-runs"}); err != nil {
		t.Fatal(err)
	}
	golden(t, ".md", b.Bytes())
	b.Reset()
	if err := WriteHTMLWith(&b, r, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, f := range r.Findings {
		if !strings.Contains(page, string(f.Kind)) {
			t.Errorf("report.html lacks the finding kind %s", f.Kind)
		}
	}
	for _, k := range r.Time.Kinds {
		if k.MsPerRequest > 0 && !strings.Contains(page, kindColor(k.Kind)) {
			t.Errorf("report.html lacks the time split's %s (colour %s)", k.Kind, kindColor(k.Kind))
		}
	}
}
