package gobench

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	f, err := os.Open("testdata/gotest.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Results) != 5 || p.Bad != 1 {
		t.Fatalf("got %d results and %d bad lines; want 5 and 1: %+v", len(p.Results), p.Bad, p.Results)
	}
	one := p.Results[0]
	if one.Name != "AlgorithmOne-2" || one.Base != "AlgorithmOne" || one.Procs != 2 || one.Iters != 35590 || one.Package != "example.com/pair" {
		t.Errorf("first result %+v", one)
	}
	for unit, want := range map[string]float64{"ns/op": 3410, "B/op": 53, "allocs/op": 2} {
		if v, ok := valueOf(one, unit); !ok || v != want {
			t.Errorf("%s = %v, %v; want %v in go test's own unit", unit, v, ok, want)
		}
	}
	small := p.Results[3]
	if small.Base != "Decode" || !slices.Equal(small.Sub, []string{"small"}) || small.Procs != 2 {
		t.Errorf("sub-benchmark %+v", small)
	}
	if v, _ := valueOf(small, "MB/s"); v != 75.21 {
		t.Errorf("MB/s = %v; want 75.21 as printed", v)
	}
	if v, _ := valueOf(small, "items/op"); v != 12.5 {
		t.Errorf("items/op = %v; want 12.5", v)
	}
	if big := p.Results[4]; big.Procs != 1 || !slices.Equal(big.Sub, []string{"size=big"}) {
		t.Errorf("GOMAXPROCS 1 result %+v", big)
	}
	if p.Config["cpu"] != "AMD EPYC" || p.Config["goarch"] != "amd64" {
		t.Errorf("config %v", p.Config)
	}
	for unit, want := range map[string]string{"ns/op": "lower", "B/op": "lower", "MB/s": "higher", "items/op": ""} {
		if p.Better[unit] != want {
			t.Errorf("better[%s] = %q; want %q", unit, p.Better[unit], want)
		}
	}
}

// A line longer than the parser's buffer (a benchmark's own output) is cut,
// and the results after it are still read.
func TestParseAfterLongLine(t *testing.T) {
	in := "pkg: x\n" + strings.Repeat("log ", 100_000) + "\nBenchmarkA 10 5 ns/op\n"
	p, err := Parse(newLineCap(strings.NewReader(in)))
	if err != nil || len(p.Results) != 1 || p.Results[0].Name != "A" {
		t.Fatalf("Parse = %+v, %v; want the result after the long line", p, err)
	}
}

func TestLineCapPassesShortLines(t *testing.T) {
	in := "a\nbb\n\nccc"
	var b strings.Builder
	buf := make([]byte, 2)
	r := newLineCap(strings.NewReader(in))
	for {
		n, err := r.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if b.String() != in {
		t.Errorf("lineCap turned %q into %q", in, b.String())
	}
}

// FuzzParse: any output parses without panicking, every result has a
// name and values with units, and cutting long lines first changes
// nothing for inputs of short lines.
func FuzzParse(f *testing.F) {
	seed, err := os.ReadFile("testdata/gotest.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(seed))
	for _, s := range []string{"", "BenchmarkA", "BenchmarkA 1", "BenchmarkA 1 2", "BenchmarkA-0 1 2 x", "Unit ns/op better=higher\nBenchmarkA 1 2 ns/op", "pkg:\nBenchmark/x-3 9 NaN ns/op", "BenchmarkA 1 1e400 B/op"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(newLineCap(strings.NewReader(s)))
		if err != nil {
			return
		}
		for _, r := range p.Results {
			if r.Procs < 1 || len(r.Values) == 0 {
				t.Fatalf("result %+v: want procs >= 1 and values", r)
			}
			for _, v := range r.Values {
				if v.Unit == "" {
					t.Fatalf("result %+v: a value without a unit", r)
				}
			}
		}
	})
}

// valueOf is r's value in unit.
func valueOf(r Result, unit string) (float64, bool) {
	for _, v := range r.Values {
		if v.Unit == unit {
			return v.Value, true
		}
	}
	return 0, false
}
