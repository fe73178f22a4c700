package gobench

import (
	"errors"
	"io"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"

	"perflab/internal/runfmt"
)

// Result is one benchmark line of go test's output.
type Result struct {
	// Name is the full name without "Benchmark": "AlgorithmOne-2",
	// "Parse/small-2".
	Name string
	// Base is the top-level name ("AlgorithmOne"), Sub the sub-benchmark
	// levels ("small"), Procs GOMAXPROCS (1 when the name has no suffix).
	Base  string
	Sub   []string
	Procs int
	// Package is the "pkg:" the binary printed before it.
	Package string
	Iters   int
	Values  []Value
}

// Value is one measurement in the unit go test printed ("ns/op", not
// benchfmt's tidied "sec/op").
type Value struct {
	Unit  string
	Value float64
}

// Parsed is what a test binary printed: its results, its configuration
// lines (goos, goarch, pkg, cpu), what each unit's better direction is,
// and how many lines looked like results but were not.
type Parsed struct {
	Results []Result
	Config  map[string]string
	Better  map[string]string
	Bad     int
}

// Parse reads go test -bench output with benchfmt. Lines that are not
// results (logs, PASS) are skipped; malformed result lines are counted in
// Bad. The error is the reader's (a read error), after what came before
// it was parsed.
func Parse(r io.Reader) (*Parsed, error) {
	rd := benchfmt.NewReader(r, "go test")
	p := &Parsed{Config: map[string]string{}, Better: map[string]string{}}
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.Result:
			p.add(rec)
		case *benchfmt.SyntaxError:
			p.Bad++
		}
	}
	units := rd.Units()
	for _, res := range p.Results {
		for _, v := range res.Values {
			if _, ok := p.Better[v.Unit]; !ok {
				p.Better[v.Unit] = better(units.GetBetter(v.Unit))
			}
		}
	}
	err := rd.Err()
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return p, err
}

func better(dir int) string {
	switch {
	case dir > 0:
		return runfmt.BetterHigher
	case dir < 0:
		return runfmt.BetterLower
	}
	return ""
}

func (p *Parsed) add(rec *benchfmt.Result) {
	for _, key := range []string{"goos", "goarch", "pkg", "cpu"} {
		if v := rec.GetConfig(key); v != "" {
			p.Config[key] = v
		}
	}
	base, parts := rec.Name.Parts()
	res := Result{Name: rec.Name.String(), Base: string(base), Procs: 1, Package: rec.GetConfig("pkg"), Iters: rec.Iters}
	for _, part := range parts {
		s := string(part)
		if n, ok := strings.CutPrefix(s, "-"); ok {
			if procs, err := strconv.Atoi(n); err == nil && procs > 0 {
				res.Procs = procs
			}
			continue
		}
		res.Sub = append(res.Sub, strings.TrimPrefix(s, "/"))
	}
	for _, v := range rec.Values {
		if v.OrigUnit != "" {
			res.Values = append(res.Values, Value{Unit: v.OrigUnit, Value: v.OrigValue})
		} else {
			res.Values = append(res.Values, Value{Unit: v.Unit, Value: v.Value})
		}
	}
	p.Results = append(p.Results, res)
}
