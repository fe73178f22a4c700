package ownership

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/pprof/profile"
)

var big struct {
	once sync.Once
	path string
	err  error
}

// bigProfile writes the profile of bench/top (600,000 samples over
// 60,000 stacks of a synthetic Go service, one record per sample as perf
// writes them) once per test binary.
func bigProfile(b *testing.B) string {
	b.Helper()
	big.once.Do(func() {
		dir, err := os.MkdirTemp("", "ownership-bench")
		if err != nil {
			big.err = err
			return
		}
		big.path = filepath.Join(dir, "big.pb.gz")
		out, err := exec.Command("go", "run", "../../bench/top/gen", "-o", big.path).CombinedOutput()
		if err != nil {
			big.err = err
			b.Logf("%s", out)
		}
	})
	if big.err != nil {
		b.Fatal(big.err)
	}
	return big.path
}

func readBig(b *testing.B) *profile.Profile {
	f, err := os.Open(bigProfile(b))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// cpuMetric reports the process's CPU time per op: on a shared machine
// wall time per op says more about the neighbours than about the code.
func cpuMetric(b *testing.B) func() {
	start := processCPU()
	return func() {
		b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkParseBig is the reference: reading the profile, the first
// thing `perflab top` does with it.
func BenchmarkParseBig(b *testing.B) {
	path := bigProfile(b)
	defer cpuMetric(b)()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := profile.Parse(f); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkClassifyBig classifies every location of the profile, then
// charges every sample and tells its runtime work.
func BenchmarkClassifyBig(b *testing.B) {
	p := readBig(b)
	m := mustNew(b, Spec{Runtime: LangGo, Modules: []Module{{Lang: LangGo, Path: "github.com/acme/shop", User: true}}})
	b.Run("locations", func(b *testing.B) {
		defer cpuMetric(b)()
		for b.Loop() {
			m.ClassifyProfile(p)
		}
		b.ReportMetric(float64(len(p.Location)), "locations")
	})
	b.Run("locations+samples", func(b *testing.B) {
		owned := 0
		defer cpuMetric(b)()
		for b.Loop() {
			c := m.ClassifyProfile(p)
			owned = 0
			for _, s := range p.Sample {
				if c.Charge(s).Owner.Location >= 0 {
					owned++
				}
				c.Work(s)
			}
		}
		b.ReportMetric(float64(len(p.Sample)), "samples")
		b.ReportMetric(float64(owned), "owned")
	})
	// The stacks as perflab's analysis keeps them (a stackSet): the
	// distinct stacks, each the indexes of its functions, leaf first, in
	// one array; one class per function.
	funcs := map[*profile.Function]int32{}
	var fns []*profile.Function
	seen := map[string]bool{}
	var frames []int32
	off := []int{0}
	for _, s := range p.Sample {
		var st []int32
		for _, loc := range s.Location {
			for _, ln := range loc.Line {
				id, ok := funcs[ln.Function]
				if !ok {
					id = int32(len(fns))
					funcs[ln.Function] = id
					fns = append(fns, ln.Function)
				}
				st = append(st, id)
			}
		}
		if k := fmt.Sprint(st); !seen[k] {
			seen[k] = true
			frames = append(frames, st...)
			off = append(off, len(frames))
		}
	}
	b.Run("functions+stacks", func(b *testing.B) {
		owned := 0
		defer cpuMetric(b)()
		for b.Loop() {
			classes := make([]Class, len(fns))
			for i, fn := range fns {
				classes[i] = m.Classify(Frame{Func: fn.Name, File: fn.Filename, Binary: "/srv/shop"})
			}
			owned = 0
			for i := 0; i+1 < len(off); i++ {
				st := frames[off[i]:off[i+1]]
				if ChargeStack(st, classes).Owner.Location >= 0 {
					owned++
				}
			}
		}
		b.ReportMetric(float64(len(fns)), "functions")
		b.ReportMetric(float64(len(off)-1), "stacks")
		b.ReportMetric(float64(owned), "owned")
	})
}
