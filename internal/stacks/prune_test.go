package stacks

import "testing"

func TestSimplifyFuncName(t *testing.T) {
	for in, want := range map[string]string{
		"malloc":                             "malloc",
		"operator new(unsigned long)":        "operator new",
		"(anonymous namespace)::Run(int)":    "(anonymous namespace)::Run",
		"std::function<void()>::operator()(": "std::function<void",
		"Foo::operator()()":                  "Foo::operator()",
		".ppc_entry(x)":                      "ppc_entry",
	} {
		if got := simplifyFuncName(in); got != want {
			t.Errorf("simplifyFuncName(%q) = %q, want %q", in, got, want)
		}
	}
}
