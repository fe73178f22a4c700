package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
)

func TestZZRender(t *testing.T) {
	dir := os.Getenv("ZZ_RUN")
	if dir == "" {
		t.Skip()
	}
	r, err := runfmt.ReadFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	var fb bytes.Buffer
	if err := analysis.WriteFlameHTMLFile(&fb, filepath.Join(dir, "profiles/cpu.pb.gz"), analysis.FlameOptions{Requests: r.Load.Requests}); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, r, fb.Bytes()); err != nil {
		t.Fatal(err)
	}
	os.WriteFile("/tmp/pic/report.html", b.Bytes(), 0o644)
}
