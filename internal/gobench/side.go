package gobench

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"perflab/internal/runfmt"
)

// side is one set of test binaries: the working tree's, or one revision's
// with --git.
type side struct {
	// label is "" alone, "base" or "new" with --git.
	label string
	rev   *runfmt.Revision
	dir   string // where the packages were resolved
	bins  []*Binary
	col   *collector
	// runs counts the timed runs made of each binary.
	runs     int
	timedS   float64
	buildS   float64
	profileS float64
}

// prepare resolves the packages in dir, keeps those with benchmarks that
// -bench selects, and builds their test binaries into tmp.
func prepare(ctx context.Context, cfg *Config, dir, tmp, label string) (*side, error) {
	t0 := time.Now()
	pkgs, err := ListPackages(ctx, dir, cfg.Packages)
	if err != nil {
		return nil, err
	}
	if pkgs, err = selectPackages(pkgs, cfg); err != nil {
		return nil, err
	}
	s := &side{label: label, dir: dir, col: newCollector()}
	for i := range pkgs {
		cfg.log(fmt.Sprintf("building the tests of %s%s", pkgs[i].ImportPath, sideSuffix(label)))
		bin, err := Build(ctx, &pkgs[i], tmp)
		var be *BuildError
		if errors.As(err, &be) {
			be.Side = label
		}
		if err != nil {
			return nil, err
		}
		s.bins = append(s.bins, bin)
	}
	s.buildS = time.Since(t0).Seconds()
	return s, nil
}

func sideSuffix(label string) string {
	if label == "" {
		return ""
	}
	return " (" + label + ")"
}

// selectPackages keeps the packages with a benchmark -bench selects. A
// package named alone without one is bad input; those a "..." pattern
// brought in are left out with a line in the log.
func selectPackages(pkgs []Package, cfg *Config) ([]Package, error) {
	var out []Package
	var skipped []string
	for _, p := range pkgs {
		names, err := p.Matching(cfg.Flags.Pattern)
		if err != nil {
			return nil, err
		}
		if len(names) > 0 {
			out = append(out, p)
			continue
		}
		why := noBenchmarks(p, cfg.Flags.Pattern)
		if !cfg.wildcard() {
			return nil, inputErr("%s", why)
		}
		skipped = append(skipped, why)
	}
	if len(out) == 0 {
		return nil, inputErr("no benchmark to run: %s", strings.Join(skipped, "; "))
	}
	for _, s := range skipped {
		cfg.log("left out: " + s)
	}
	return out, nil
}

// noBenchmarks says why package p has nothing to run.
func noBenchmarks(p Package, pattern string) string {
	if len(p.Benchmarks) == 0 {
		return fmt.Sprintf("package %s has no benchmarks (no func BenchmarkXxx(b *testing.B) in its _test.go files)", p.ImportPath)
	}
	return fmt.Sprintf("package %s: no benchmark matches -bench %q (it has %s)", p.ImportPath, pattern, listNames(p.Benchmarks, 5))
}

func listNames(names []string, n int) string {
	if len(names) > n {
		return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
	}
	return strings.Join(names, ", ")
}

// timedRun runs every binary once with f (f.Count repetitions each).
func (s *side) timedRun(ctx context.Context, f Flags) error {
	t0 := time.Now()
	defer func() { s.timedS += time.Since(t0).Seconds() }()
	for i, bin := range s.bins {
		p, err := bin.Run(ctx, f.args(), f.Timeout)
		s.col.add(bin, i, p)
		if err != nil {
			return err
		}
	}
	s.runs += f.Count
	return nil
}

// checkResults refuses a package that printed no result although its
// top-level benchmarks matched (a sub-benchmark pattern that selects
// none).
func (s *side) checkResults(cfg *Config) error {
	for _, bin := range s.bins {
		if !s.col.has(bin.Pkg.ImportPath) {
			return inputErr("package %s%s printed no benchmark result for -bench %q (does a sub-benchmark match?)", bin.Pkg.ImportPath, sideSuffix(s.label), cfg.Flags.Pattern)
		}
	}
	return nil
}

// packages describes the side's packages for run.json.
func (s *side) packages() []runfmt.BenchPackage {
	var out []runfmt.BenchPackage
	for _, b := range s.bins {
		c := s.col.config[b.Pkg.ImportPath]
		out = append(out, runfmt.BenchPackage{ImportPath: b.Pkg.ImportPath, Dir: b.Pkg.Dir, Module: b.Pkg.Module,
			GOOS: c["goos"], GOARCH: c["goarch"], CPU: c["cpu"]})
	}
	return out
}

// name is the default name of the side's runs: bench- and the first
// package's last element.
func (s *side) name() string {
	return "bench-" + filepath.Base(s.bins[0].Pkg.ImportPath)
}
