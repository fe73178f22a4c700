package report

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

// TestRunPageGolden renders stored runs' one-screen verdicts: a Go
// service at its 1-core budget on a busy machine (fmtprint), and the
// demo's four endpoints.
func TestRunPageGolden(t *testing.T) {
	for _, name := range []string{"fmtprint", "demo"} {
		t.Run(name, func(t *testing.T) {
			r := readPageRun(t, "testdata/page/"+name+".json")
			var b bytes.Buffer
			if err := WriteRunPage(&b, r, "perflab-runs/"+r.ID); err != nil {
				t.Fatal(err)
			}
			golden(t, ".txt", b.Bytes())
			if n := strings.Count(b.String(), "\n"); n > 45 {
				t.Errorf("the page has %d lines; want at most 45", n)
			}
		})
	}
}

// TestRunPageSaysEachFigureOnce: a function the findings name is not
// listed again among the other costly functions, and the first finding's
// payoff is in the headline alone.
func TestRunPageSaysEachFigureOnce(t *testing.T) {
	r := readPageRun(t, "testdata/page/demo.json")
	var b bytes.Buffer
	if err := WriteRunPage(&b, r, "d"); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	_, others, _ := strings.Cut(page, "Other costly functions")
	for i, f := range r.Findings[:pageFindings] {
		c, _ := f.Culprit()
		if strings.Contains(others, c.Function+" ") {
			t.Errorf("finding %d's culprit %s is listed again among the other functions:\n%s", i+1, c.Function, page)
		}
	}
	pay := payoffText(&r.Findings[0], r.Answer)
	if n := strings.Count(strings.Join(strings.Fields(page), " "), pay); n != 1 {
		t.Errorf("the first finding's payoff %q is said %d times; want once:\n%s", pay, n, page)
	}
}

func readPageRun(t *testing.T, path string) *runfmt.Run {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := runfmt.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// BenchmarkRunPage renders the demo's page: the verdict's rendering is
// part of every perflab run and show.
func BenchmarkRunPage(b *testing.B) {
	f, err := os.Open("testdata/page/demo.json")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	r, err := runfmt.Read(f)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := WriteRunPage(&buf, r, "d"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRunPageShowsTheSettingOfAConsequence: throttling at a saturated
// budget is a consequence, listed after the causes, yet the setting that
// sizes the service to its budget (GOMAXPROCS) is on the page, as it costs
// nothing to try.
func TestRunPageShowsTheSettingOfAConsequence(t *testing.T) {
	r := readPageRun(t, "testdata/page/demo.json")
	r.Findings = append(r.Findings, runfmt.Finding{
		Kind: runfmt.FindingThrottled, Advice: runfmt.AdviceMatchGOMAXPROCS, ConsequenceOf: runfmt.LimitCPUBudget,
		Figures: runfmt.Figures{runfmt.FigWaitPerRequest: 42840, runfmt.FigGOMAXPROCS: 2, runfmt.FigGOMAXPROCSMatch: 1, runfmt.FigCPULimit: 1},
	})
	var b bytes.Buffer
	if err := WriteRunPage(&b, r, "d"); err != nil {
		t.Fatal(err)
	}
	page := strings.Join(strings.Fields(b.String()), " ")
	_, after, ok := strings.Cut(page, "Consequences of the saturated CPU")
	if !ok || !strings.Contains(after, "GOMAXPROCS 2 above the 1-core budget") || !strings.Contains(after, "GOMAXPROCS=1") {
		t.Errorf("the page does not name GOMAXPROCS 2 above the budget and GOMAXPROCS=1 after its consequences:\n%s", b.String())
	}
	if n := strings.Count(b.String(), "\n"); n > 45 {
		t.Errorf("the page has %d lines; want at most 45", n)
	}
}
