package report

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

// badFigure is a figure no page may print: not a number, infinite, or a
// negative time, size, count or percentage.
var badFigure = regexp.MustCompile(`NaN|[+-]Inf|(^|[^\w.+-])-\d[\d.]*\s?(%|µs|ms|s\b|B\b|KiB|MiB|GiB|goroutines|cores|requests)`)

// FuzzRunPages: whatever run.json holds, what runfmt.Read accepts renders
// in text and markdown without panicking and without a figure that cannot
// be ("+Inf s", "-5 goroutines", "explained -50%"); what it refuses, it
// refuses in one line.
func FuzzRunPages(f *testing.F) {
	base := seedRun(f)
	f.Add(string(base))
	for _, m := range []struct {
		path []string
		v    any
	}{
		{[]string{"load", "latency_ms", "p99"}, 1e308},
		{[]string{"load", "requests"}, -5},
		{[]string{"target", "cpu_ms_per_request"}, -5},
		{[]string{"target", "throttled_pct"}, -50},
		{[]string{"gc", "cpu_pct"}, 150},
		{[]string{"target", "cpu_cores_mean"}, -1},
	} {
		f.Add(mutate(f, base, m.path, m.v))
	}
	dir := f.TempDir() // a run directory with no profiles
	f.Fuzz(func(t *testing.T, s string) {
		r, err := runfmt.Read(strings.NewReader(s))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("the refusal is not one line: %q", err)
			}
			return
		}
		var out bytes.Buffer
		if err := WriteHeadline(&out, r); err != nil {
			return
		}
		if r.Load != nil {
			_ = WriteLoadText(&out, r.Load)
		}
		if r.Batch != nil {
			_ = WriteBatchText(&out, r, dir)
		} else {
			_ = WriteVerdict(&out, r, dir)
			_ = WriteRunMarkdown(&out, r, dir, MarkdownOptions{})
		}
		if m := badFigure.FindString(out.String()); m != "" {
			t.Fatalf("a page prints %q of a run Read accepted:\n%s", m, out.String())
		}
	})
}

// seedRun is testdata/schema2/run.json made small enough for the fuzzer
// to mutate quickly: without the per-second series, three hot and
// allocating functions.
func seedRun(f *testing.F) []byte {
	b, err := os.ReadFile("testdata/schema2/run.json")
	if err != nil {
		f.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		f.Fatal(err)
	}
	delete(m["load"].(map[string]any), "series")
	for _, k := range []string{"hot", "allocs"} {
		if l, ok := m[k].([]any); ok && len(l) > 3 {
			m[k] = l[:3]
		}
	}
	if b, err = json.Marshal(m); err != nil {
		f.Fatal(err)
	}
	return b
}

// mutate sets the field at path of the run.json doc to v.
func mutate(f *testing.F, doc []byte, path []string, v any) string {
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		f.Fatal(err)
	}
	at := m
	for _, k := range path[:len(path)-1] {
		next, ok := at[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			at[k] = next
		}
		at = next
	}
	at[path[len(path)-1]] = v
	b, err := json.Marshal(m)
	if err != nil {
		f.Fatal(err)
	}
	return string(b)
}
