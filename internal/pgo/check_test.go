package pgo

import (
	"strings"
	"testing"
)

func FuzzShebangInterpreter(f *testing.F) {
	for _, s := range []string{"#!/usr/bin/python3 -u\n", "#!/usr/bin/env python3", "#!/usr/bin/env -S A=1 ruby -w", "#!", "#! \n", "#!/usr/bin/env", "\x7fELF", "#!/bin/sh\nexec python3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		got := shebangInterpreter(line)
		first, _, _ := strings.Cut(line, "\n")
		if got != "" && (!strings.HasPrefix(line, "#!") || !strings.Contains(first, got) || strings.ContainsAny(got, " \t")) {
			t.Fatalf("shebangInterpreter(%q) = %q: not a word of the #! line", line, got)
		}
	})
}
