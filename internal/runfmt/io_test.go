package runfmt

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestWriteReadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	cores := 0.5
	in := &Run{SchemaVersion: SchemaVersion, Name: "svc", ID: "20260102-030405-svc", Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Status: StatusPartial, PartialReason: "interrupted", Config: Config{URL: "http://127.0.0.1:8080/", CPUs: 0.5, Load: map[string]string{"rate": "100"}},
		Load:   &LoadResult{Model: "open", Requests: 10, Status: map[string]int64{"200": 10}, Series: []SeriesPoint{{T: 0, Requests: 10, CPUCores: &cores}}},
		Target: &TargetSummary{CPUMsPerRequest: 1.5, Source: "cgroup-v2"}, Findings: []Finding{{Kind: "gc", Title: "t", Share: 0.2}}}
	if err := WriteFile(dir, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip changed the run:\n%+v\n%+v", in, out)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".run-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestReadRefusesNewerAndForeignFiles(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"schema_version": 99, "name": "x"}`, "newer than this perflab"},
		{`{"name": "x"}`, "not a perflab run"},
		{`not json`, "decoding run.json"},
	} {
		path := filepath.Join(t.TempDir(), FileName)
		os.WriteFile(path, []byte(tc.body), 0o644)
		if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadFile(%s) = %v; want an error with %q", tc.body, err, tc.want)
		}
	}
}
