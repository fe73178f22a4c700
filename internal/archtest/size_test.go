package archtest

import (
	"strings"
	"testing"
)

// labMaxLines bounds package lab's code: lab says the order of a run's
// stages and names what cli needs of the packages below it; the stages
// themselves live in those packages (session, window, stuck, decide,
// findmax, batch, pgo), each with one job.
const labMaxLines = 2500

func TestLabStaysTheDriver(t *testing.T) {
	lines := 0
	for _, f := range goFiles(t) {
		if dir, name, ok := strings.Cut(strings.TrimPrefix(f.path, "../../internal/"), "/"); ok && dir == "lab" && !strings.Contains(name, "/") {
			lines += f.fset.File(f.ast.Pos()).LineCount()
		}
	}
	if lines == 0 {
		t.Fatal("read no file of internal/lab")
	}
	if lines > labMaxLines {
		t.Errorf("internal/lab has %d lines of code, more than %d: a stage of a run belongs in a package of its own", lines, labMaxLines)
	}
}
