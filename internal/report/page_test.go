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
