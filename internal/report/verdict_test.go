package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

// TestVerdictHotAddsOwnAndCalledCPU checks the user-code table: a function's
// "self+called" is its own CPU plus the library CPU charged to it.
func TestVerdictHotAddsOwnAndCalledCPU(t *testing.T) {
	r := &runfmt.Run{SchemaVersion: runfmt.SchemaVersion, Status: runfmt.StatusComplete,
		Load: &runfmt.LoadResult{Requests: 100, RPS: 10},
		Hot: []runfmt.HotFunc{
			{Function: "main.search", CumPct: 80, CPUUsPerRequest: 100, CumUsPerRequest: 420, UserCode: true, AttributedUsReq: 300},
			{Function: "main.leaf", CumPct: 5, CPUUsPerRequest: 20, CumUsPerRequest: 20, UserCode: true},
		}}
	var b bytes.Buffer
	if err := WriteVerdict(&b, r, "dir"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "perflab ui --dir .") {
		t.Errorf("the verdict does not point at perflab ui:\n%s", b.String())
	}
	for fn, want := range map[string]string{"main.search": "400.0 µs", "main.leaf": "20.0 µs"} {
		re := regexp.MustCompile(`(?m)^\s+(\S+ µs)\s+\S+ µs\s+[0-9.]+%\s+` + regexp.QuoteMeta(fn) + `$`)
		if m := re.FindStringSubmatch(b.String()); m == nil || m[1] != want {
			t.Errorf("%s: self+called %v; want %s in\n%s", fn, m, want, b.String())
		}
	}
}
