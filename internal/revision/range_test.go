package revision

import (
	"strings"
	"testing"
)

func TestParseRange(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Range
	}{
		{"main..HEAD", Range{Base: "main", New: "HEAD"}},
		{"HEAD~1..HEAD", Range{Base: "HEAD~1", New: "HEAD"}},
		{"v1.2.0..", Range{Base: "v1.2.0", New: ""}},
		{"..feature", Range{New: "feature"}},
		{"feature/x", Range{New: "feature/x"}},
		{"origin/main...HEAD", Range{Base: "origin/main", New: "HEAD", MergeBase: true}},
		{"main...", Range{Base: "main", MergeBase: true}},
		{"abc1234..def5678", Range{Base: "abc1234", New: "def5678"}},
		{"@{u}..HEAD^2", Range{Base: "@{u}", New: "HEAD^2"}},
	} {
		got, err := ParseRange(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseRange(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			continue
		}
		if again, err := ParseRange(got.String()); err != nil || again != got {
			t.Errorf("ParseRange(%q).String() = %q reads back as %+v, %v", tc.in, got.String(), again, err)
		}
	}
}

func TestParseRangeBadInput(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "empty"},
		{"  ", "empty"},
		{"...HEAD", "needs BASE"},
		{"a..b..c", "holds \"..\""},
		{"--output=x..HEAD", "starts with '-'"},
		{"main..-x", "starts with '-'"},
		{"my branch..HEAD", "does not allow"},
		{"HEAD:file", "does not allow"},
		{"a\x01..b", "control character"},
	} {
		if _, err := ParseRange(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseRange(%q) error = %v; want one containing %q", tc.in, err, tc.want)
		}
	}
}

// FuzzParseRange: any input parses or is refused without panicking, and
// what parses formats back to the same range, with no revision git would
// read as an option.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"main..HEAD", "HEAD~1..HEAD", "a...b", "..x", "x..", "...", "....", "-x", "a..b..c", "é..ü", "@{-1}..HEAD"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRange(s)
		if err != nil {
			return
		}
		for _, rev := range []string{r.Base, r.New} {
			if strings.HasPrefix(rev, "-") || strings.Contains(rev, "..") {
				t.Fatalf("ParseRange(%q) = %+v: revision %q", s, r, rev)
			}
		}
		if again, err := ParseRange(r.String()); err != nil && r.String() != "" || err == nil && again != r {
			t.Fatalf("ParseRange(%q) = %+v; String() %q reads back as %+v, %v", s, r, r.String(), again, err)
		}
	})
}
