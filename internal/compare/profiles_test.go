package compare

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// DiffFlame draws the two sides' CPU profiles as one page with the title
// given, and nothing when a side has no CPU profile.
func TestDiffFlame(t *testing.T) {
	cpu := func(ns int64) *profile.Profile {
		return stackProfile([]*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
			map[string][]int64{fmt.Sprint(lowerStack): {ns}}, [][]string{lowerStack})
	}
	res := &Result{CPU: &ProfilePair{Base: cpu(3000), New: cpu(1000), BaseRequests: 100, NewRequests: 100}}
	page, err := res.DiffFlame("CPU per request: new vs base")
	if err != nil {
		t.Fatal(err)
	}
	if s := string(page); !strings.HasPrefix(s, "<!DOCTYPE html>") || !strings.Contains(s, "CPU per request: new vs base") || !strings.Contains(s, "strings.ToLower") {
		t.Errorf("diff flame page lacks its doctype, title or frames:\n%.500s", s)
	}
	for _, r := range []*Result{{}, {CPU: &ProfilePair{Base: cpu(3000)}}} {
		if page, err := r.DiffFlame("t"); page != nil || err != nil {
			t.Errorf("DiffFlame without both profiles = %d bytes, %v; want nothing", len(page), err)
		}
	}
}
