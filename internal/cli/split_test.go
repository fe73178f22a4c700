package cli

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"./server -addr :8080", []string{"./server", "-addr", ":8080"}},
		{"  a\tb  ", []string{"a", "b"}},
		{`sh -c 'echo "hi there"; exit 3'`, []string{"sh", "-c", `echo "hi there"; exit 3`}},
		{`./svc -name "a b" -q "x\"y" -p "\n"`, []string{"./svc", "-name", "a b", "-q", `x"y`, "-p", `\n`}},
		{`a\ b c`, []string{"a b", "c"}},
		{`x'' ""`, []string{"x", ""}},
		{`a"b c"d`, []string{"ab cd"}},
	} {
		got, err := splitCommand("--base", tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("splitCommand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"", "give the command line"},
		{"   ", "give the command line"},
		{`./svc "open`, `unterminated " quote`},
		{`./svc 'open`, `unterminated ' quote`},
		{`./svc \`, "ends with a backslash"},
	} {
		if _, err := splitCommand("--new", tc.in); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "--new") {
			t.Errorf("splitCommand(%q) error = %v; want it to name --new and say %q", tc.in, err, tc.want)
		}
	}
}

// FuzzSplitCommand checks that splitting never panics and that words quoted
// back with single quotes split to the same words.
func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{`./svc -mode=buggy`, `sh -c 'a b'`, `"x\"y" z`, `a\ b`, `''`, `"`, `\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := splitCommand("--base", s)
		if err != nil {
			return
		}
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, "'"+strings.ReplaceAll(w, "'", `'\''`)+"'")
		}
		again, err := splitCommand("--base", strings.Join(quoted, " "))
		if err != nil || !slices.Equal(again, words) {
			t.Fatalf("splitCommand(%q) = %q; re-quoted %q splits to %q, %v", s, words, quoted, again, err)
		}
	})
}
