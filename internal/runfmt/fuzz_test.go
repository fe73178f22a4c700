package runfmt

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzRead: run.json from anywhere (a hand-edited file, another version)
// never panics the reader, refuses an unknown word in one line, and what
// it accepts has a schema version it knows and writes back.
func FuzzRead(f *testing.F) {
	var b bytes.Buffer
	Write(&b, &Run{SchemaVersion: SchemaVersion, Name: "x", ID: "20260101-000000-x", Status: StatusComplete,
		Load: &LoadResult{Requests: 10, Status: map[string]int64{"200": 10}}})
	f.Add(b.String())
	for _, s := range []string{"", "{}", `{"schema_version": 99}`, `{"schema_version": 1, "load": {"requests": -1}}`,
		`{"schema_version": 1e400}`, strings.Repeat("[", 100000), `{"schema_version": 1, "target": {"exit_code": "x"}}`,
		`{"schema_version": 2, "profiles": [{"type": "cpu", "source": "perf+py-spy"}, {"type": "wall", "source": "go-trace"}]}`,
		`{"schema_version": 3, "profiles": [{"type": "cpu", "source": ["perf", 1]}]}`,
		`{"schema_version": 2, "findings": [{"kind": "gc"}, {"kind": "foo\nbar"}]}`,
		`{"schema_version": 3, "findings": [{"kind": "gc", "title": "t", "detail": "d", "functions": ["f"], "cost_us_per_request": 3, "share": 0.2}]}`,
		`{"schema_version": 4, "findings": [{"kind": "gc", "figures": {"share": 0.2, "cpu_us_per_request": 3}, "settings": {"gogc": "100"}, "advice": "allocate-less",
			"evidence": {"functions": [{"role": "allocator", "function": "f", "figures": {"bytes_per_request": 1}}], "time": [{"name": "sync", "us_per_request": 2}]}}]}`,
		`{"schema_version": 4, "findings": [{"kind": "gc", "figures": {"speed\n": 1}, "evidence": {"functions": [{"role": ""}]}}]}`,
		`{"schema_version": 2, "time_per_request": {"source": "py-spy", "kinds": [{"kind": "sync", "waits": {"lock": 1, "": 2}}]}}`,
		`{"schema_version": 3, "gc": {"heap_max_mb": 12.5, "heap_max_mib": "x", "events": [{"heap_live_mb": null}, 3]}, "heap_growth": {"sites": [{"mb_per_s": 1e999}]}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Read(strings.NewReader(s))
		if fe := (*FieldError)(nil); errors.As(err, &fe) && strings.Contains(err.Error(), "\n") {
			t.Fatalf("the refusal of a field is not one line: %q", err)
		}
		if err != nil {
			return
		}
		if r.SchemaVersion < 1 || r.SchemaVersion > SchemaVersion {
			t.Fatalf("Read accepted schema_version %d", r.SchemaVersion)
		}
		var out bytes.Buffer
		if err := Write(&out, r); err != nil {
			t.Fatalf("a run Read accepts does not write back: %v", err)
		}
	})
}
