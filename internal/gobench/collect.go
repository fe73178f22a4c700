package gobench

import (
	"slices"
	"sort"

	"perflab/internal/runfmt"
	"perflab/internal/stats"
)

// collector gathers the timed runs' results, benchmark by benchmark, in
// the order go test first printed them.
type collector struct {
	order  []benchKey
	byKey  map[benchKey]*timed
	config map[string]map[string]string // per package: goos, goarch, cpu
	better map[string]string
}

type benchKey struct{ pkg, name string }

// timed is one benchmark's timed runs.
type timed struct {
	first  Result
	bin    *Binary
	pkg    int
	iters  []int
	values map[string][]float64
	units  []string
}

func newCollector() *collector {
	return &collector{byKey: map[benchKey]*timed{}, config: map[string]map[string]string{}, better: map[string]string{}}
}

// add records what binary bin (the pkg-th package) printed.
func (c *collector) add(bin *Binary, pkg int, p *Parsed) {
	if p == nil {
		return
	}
	conf := c.config[bin.Pkg.ImportPath]
	if conf == nil {
		conf = map[string]string{}
		c.config[bin.Pkg.ImportPath] = conf
	}
	for k, v := range p.Config {
		conf[k] = v
	}
	for u, b := range p.Better {
		c.better[u] = b
	}
	for _, r := range p.Results {
		k := benchKey{bin.Pkg.ImportPath, r.Name}
		t := c.byKey[k]
		if t == nil {
			t = &timed{first: r, bin: bin, pkg: pkg, values: map[string][]float64{}}
			c.byKey[k] = t
			c.order = append(c.order, k)
		}
		t.iters = append(t.iters, r.Iters)
		for _, v := range r.Values {
			if _, ok := t.values[v.Unit]; !ok {
				t.units = append(t.units, v.Unit)
			}
			t.values[v.Unit] = append(t.values[v.Unit], v.Value)
		}
	}
}

// has says whether package importPath printed any result.
func (c *collector) has(importPath string) bool {
	for _, k := range c.order {
		if k.pkg == importPath {
			return true
		}
	}
	return false
}

// benchmarks summarises every benchmark: each unit's median and 95%
// confidence interval over the timed runs (benchmath, through stats).
func (c *collector) benchmarks() []runfmt.Benchmark {
	out := []runfmt.Benchmark{}
	for _, k := range c.order {
		t := c.byKey[k]
		b := runfmt.Benchmark{Name: t.first.Name, Package: k.pkg, Function: t.bin.Pkg.Function(t.first.Base),
			Procs: t.first.Procs, Iters: t.iters}
		for _, u := range unitOrder(t.units) {
			vs := t.values[u]
			b.Metrics = append(b.Metrics, runfmt.BenchMetric{Unit: u, Better: c.better[u], Values: vs, Summary: stats.Summarize(vs).Record()})
		}
		out = append(out, b)
	}
	return out
}

// unitOrder puts go test's own units first, in the order it prints them,
// then the benchmark's own.
func unitOrder(units []string) []string {
	rank := func(u string) int {
		if i := slices.Index([]string{runfmt.BenchUnitTime, runfmt.BenchUnitBytes, runfmt.BenchUnitAllocs}, u); i >= 0 {
			return i
		}
		return 3
	}
	out := slices.Clone(units)
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i]) < rank(out[j]) })
	return out
}

// medianIters is the median b.N of a benchmark's timed runs.
func medianIters(iters []int) int {
	s := slices.Clone(iters)
	slices.Sort(s)
	if len(s) == 0 {
		return 1
	}
	return max(1, s[len(s)/2])
}
