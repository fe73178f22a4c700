package gobench

import (
	"bytes"
	"context"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// pairDir is a module of its own with two implementations of one job:
// AlgorithmOne allocates twice per call, AlgorithmTwo never.
var pairDir = filepath.Join("..", "..", "testdata", "bench", "pair")

// goTest runs go test -bench in dir as a user would and parses it.
func goTest(t *testing.T, dir string, args ...string) *Parsed {
	t.Helper()
	cmd := exec.Command("go", append([]string{"test", "-run", "^$", "-bench", ".", "-benchmem"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go test: %v\n%s", err, out)
	}
	p, err := Parse(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// values are one benchmark's values of unit over the runs of p.
func values(p *Parsed, name, unit string) []float64 {
	var out []float64
	for _, r := range p.Results {
		if v, ok := valueOf(r, unit); ok && r.Name == name {
			out = append(out, v)
		}
	}
	return out
}

// TestPairAgainstGoTest: B/op and allocs/op are go test -benchmem's, and
// the allocating lines are named, with bytes adding up to B/op.
func TestPairAgainstGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real benchmarks")
	}
	gt := goTest(t, pairDir, "-benchtime", "100000x", "-count", "3")
	res, err := Run(context.Background(), Config{Dir: pairDir, Flags: Flags{Pattern: ".", Count: 3, Benchtime: "100000x", Timeout: 5 * time.Minute},
		Store: store.Store{Root: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	bs := res.Run.Bench.Benchmarks
	if len(bs) != 2 || res.Run.Status != runfmt.StatusComplete {
		t.Fatalf("status %s, %d benchmarks: %+v", res.Run.Status, len(bs), bs)
	}
	for _, b := range bs {
		for _, unit := range []string{runfmt.BenchUnitBytes, runfmt.BenchUnitAllocs} {
			m, _ := b.Metric(unit)
			if want := median(values(gt, b.Name, unit)); m.Summary.Median != want {
				t.Errorf("%s %s = %v; go test -benchmem says %v", b.Name, unit, m.Summary.Median, want)
			}
		}
	}
	checkLines(t, bs[0], bs[1])
}

// TestPairTimeWithinGoTestNoise: ns/op, measured in turns with go test's
// own (so the machine's drift touches both), lies within go test's spread.
func TestPairTimeWithinGoTestNoise(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real benchmarks")
	}
	gt := map[string][]float64{}
	ours := map[string][]float64{}
	for range 4 {
		p := goTest(t, pairDir, "-benchtime", "100000x", "-count", "1")
		res, err := Run(context.Background(), Config{Dir: pairDir, Flags: Flags{Pattern: ".", Count: 1, Benchtime: "100000x", Timeout: 5 * time.Minute},
			NoProfiles: true, Store: store.Store{Root: t.TempDir()}})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range res.Run.Bench.Benchmarks {
			m, _ := b.Metric(runfmt.BenchUnitTime)
			ours[b.Name] = append(ours[b.Name], m.Values...)
			gt[b.Name] = append(gt[b.Name], values(p, b.Name, runfmt.BenchUnitTime)...)
		}
	}
	for name, vs := range ours {
		g := gt[name]
		if len(g) != len(vs) {
			t.Fatalf("%s: %d runs of ours, %d of go test's", name, len(vs), len(g))
		}
		if m, lo, hi := median(vs), slices.Min(g)/1.5, slices.Max(g)*1.5; m < lo || m > hi {
			t.Errorf("%s ns/op: ours %v (median %v); go test's, in turns with them: %v", name, vs, m, g)
		}
	}
}

func median(vs []float64) float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// checkLines: AlgorithmOne's two allocating lines are named and hold its
// B/op; AlgorithmTwo has no allocation profile; both have CPU lines of the
// user's package only.
func checkLines(t *testing.T, one, two runfmt.Benchmark) {
	t.Helper()
	if one.Allocs == nil {
		t.Fatalf("%s: no allocation profile (%v)", one.Name, one.Notes)
	}
	var texts []string
	var sum float64
	for _, l := range one.Allocs.Lines {
		texts = append(texts, l.Text)
		sum += l.PerOp
	}
	joined := strings.Join(texts, "\n")
	if !strings.Contains(joined, "bytes.NewBuffer(data)") || !strings.Contains(joined, "make([]byte, len(find))") {
		t.Errorf("%s's allocating lines: %q; want the bytes.NewBuffer and make lines", one.Name, texts)
	}
	bop, _ := one.Metric(runfmt.BenchUnitBytes)
	if math.Abs(sum-bop.Summary.Median) > 1 {
		t.Errorf("%s: its lines allocate %.2f B/op; -benchmem says %v", one.Name, sum, bop.Summary.Median)
	}
	if two.Allocs != nil {
		t.Errorf("%s allocates nothing but has an allocation profile: %+v", two.Name, two.Allocs)
	}
	for _, b := range []runfmt.Benchmark{one, two} {
		if b.CPU == nil || len(b.CPU.Lines) == 0 {
			t.Fatalf("%s: no CPU lines (%v)", b.Name, b.Notes)
		}
		for _, l := range b.CPU.Lines {
			if !strings.HasPrefix(l.Function, "example.com/pair.") {
				t.Errorf("%s: CPU line of %s is not the user's code", b.Name, l.Function)
			}
		}
	}
}
