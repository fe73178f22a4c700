package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"perflab/internal/prose"
	"perflab/internal/runfmt"
)

// TestFindingWords renders each finding of package findings' cases (one a
// kind of finding, and variants: ../findings/testdata) from its data, in
// each writer's format: the verdict's text, the markdown of a run, and
// report.html's title and detail. One golden per case and writer.
func TestFindingWords(t *testing.T) {
	data, err := os.ReadFile("../findings/testdata/TestEveryKindHasACase.json.golden")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name    string         `json:"name"`
		Finding runfmt.Finding `json:"finding"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			fs := []runfmt.Finding{c.Finding}
			var text bytes.Buffer
			p := &printer{w: &text}
			p.findings(fs, nil)
			golden(t, ".txt", text.Bytes())
			var md strings.Builder
			mdFindings(&md, fs, nil, 1)
			golden(t, ".md", []byte(md.String()))
			w := prose.Wording(&fs[0])
			golden(t, ".html", []byte(string(proseHTML(w.Title))+"\n"+string(proseHTML(w.Detail))+"\n"))
		})
	}
}
