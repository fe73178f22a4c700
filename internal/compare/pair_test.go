package compare

import (
	"testing"

	"perflab/internal/store"
)

// TestCompareRenumberedClosure: the function whose cost fell is a closure
// the two builds number differently (main.handler.func1, then func2): one
// row under the base's name, with its fall, not one "gone" and one "new".
func TestCompareRenumberedClosure(t *testing.T) {
	root := t.TempDir()
	var base, new []store.Entry
	for i := range 5 {
		b, n := buggy(i), fixed(i)
		b.rename = map[string]string{"main.search": "main.handler.func1"}
		n.rename = map[string]string{"main.search": "main.handler.func2"}
		base, new = append(base, writeRun(t, root, i, b)), append(new, writeRun(t, root, 10+i, n))
	}
	res, err := Compare(base, new, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, f := range res.Comparison.Functions {
		switch f.Function {
		case "main.handler.func2":
			t.Errorf("the new build's name listed apart: %+v", f)
		case "main.handler.func1":
			if f.Profile == "cpu" {
				found = true
				if f.Delta >= 0 || f.New == 0 {
					t.Errorf("main.handler.func1 %+v; want its cost in both builds, fallen", f)
				}
			}
		}
	}
	if !found {
		t.Errorf("no CPU row for main.handler.func1: %+v", res.Comparison.Functions)
	}
}
