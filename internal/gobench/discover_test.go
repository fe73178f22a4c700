package gobench

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestIsBenchmarkName(t *testing.T) {
	for name, want := range map[string]bool{"Benchmark": true, "BenchmarkX": true, "Benchmark_x": true, "Benchmark1": true,
		"Benchmarkx": false, "Benchmarks": false, "benchmarkX": false, "TestX": false} {
		if got := isBenchmarkName(name); got != want {
			t.Errorf("isBenchmarkName(%q) = %v; want %v", name, got, want)
		}
	}
}

func TestFirstElement(t *testing.T) {
	for in, want := range map[string]string{".": ".", "A/b": "A", "A[/]x/b": "A[/]x", `A\/x/b`: `A\/x`, "(A|B/C)/d": "(A|B/C)", "/x": ""} {
		if got := firstElement(in); got != want {
			t.Errorf("firstElement(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestFindBenchmarks(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	in := write("a_test.go", "package a\nimport \"testing\"\nfunc BenchmarkOne(b *testing.B) {}\nfunc Benchmarkx(b *testing.B) {}\nfunc (T) BenchmarkM(b *testing.B) {}\ntype T struct{}\n")
	ext := write("b_test.go", "package a_test\nimport \"testing\"\nfunc BenchmarkTwo(b *testing.B) {}\n")
	bad := write("c_test.go", "package a\nfunc BenchmarkBroken( {\n")
	p := Package{ImportPath: "example.com/a", Module: "example.com/a", TestFiles: []string{in, ext, bad}}
	if err := p.findBenchmarks(map[string]bool{ext: true}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Benchmarks, []string{"BenchmarkOne", "BenchmarkTwo"}) {
		t.Errorf("benchmarks %v; want BenchmarkOne, BenchmarkTwo", p.Benchmarks)
	}
	if f := p.Function("One"); f != "example.com/a.BenchmarkOne" {
		t.Errorf("Function(One) = %q", f)
	}
	if f := p.Function("Two"); f != "example.com/a_test.BenchmarkTwo" {
		t.Errorf("Function(Two) = %q; want the external test package's", f)
	}
	if got, _ := p.Matching("Two/sub"); !slices.Equal(got, []string{"BenchmarkTwo"}) {
		t.Errorf("Matching(Two/sub) = %v", got)
	}
	if _, err := p.Matching("("); err == nil {
		t.Error("Matching(\"(\") accepted a bad regexp")
	}
	uc := p.UserCode()
	for name, want := range map[string]bool{"example.com/a.F": true, "example.com/a_test.BenchmarkTwo": true, "example.com/a/sub.G": true,
		"example.com/ab.F": false, "bytes.(*Buffer).Write": false, "testing.(*B).runN": false} {
		if uc.IsUser(name, "") != want {
			t.Errorf("user code %q: %v; want %v", name, !want, want)
		}
	}
}
