package compare

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
	"perflab/internal/stats"
	"perflab/internal/store"
)

// Options adjusts a comparison.
type Options struct {
	// BaseLabel and NewLabel name the groups in the output ("base" and
	// "new" when empty).
	BaseLabel, NewLabel string
	// Force compares runs of different URL paths instead of refusing.
	Force bool
	// FailOn are the --fail-on rules to check.
	FailOn []stats.Threshold
	// Expected lists configuration that is meant to differ between the
	// groups and so is not warned about: "command" (ab) or "env:NAME"
	// (sweep).
	Expected []string
	// Functions is how many rows of each profile kind to keep; 0 means
	// DefaultFunctions.
	Functions int
}

// DefaultFunctions is how many functions of each profile kind a comparison
// lists.
const DefaultFunctions = 20

// ErrIncomparable is wrapped by the error Compare returns when the runs
// measure different things and Options.Force is not set.
var ErrIncomparable = errors.New("runs are not comparable")

// Result is a comparison and the merged profiles behind its function rows
// (for the differential flame graph).
type Result struct {
	Comparison *runfmt.Comparison
	// CPU and Allocs are nil when either group lacks the profile.
	CPU, Allocs *ProfilePair
}

// Compare compares the runs of base with those of new.
func Compare(base, new []store.Entry, opt Options) (*Result, error) {
	c := &runfmt.Comparison{Warnings: []string{}, Functions: []runfmt.FunctionDelta{}, IntervalMinRuns: stats.MinRunsForInterval}
	var err error
	var bruns, nruns []run
	if bruns, err = usable(base, "base", &c.Warnings); err != nil {
		return nil, err
	}
	if nruns, err = usable(new, "new", &c.Warnings); err != nil {
		return nil, err
	}
	if builtFromGit(bruns) && builtFromGit(nruns) {
		// ab --git: each side's command runs its own build.
		opt.Expected = append(opt.Expected, "command")
	}
	if err := checkComparable(bruns, nruns, opt, &c.Warnings); err != nil {
		return nil, err
	}
	if err := checkKinds(bruns, nruns); err != nil {
		return nil, err
	}
	c.Batch = batchRuns(bruns)
	c.Base = group(label(opt.BaseLabel, "base"), bruns)
	c.New = group(label(opt.NewLabel, "new"), nruns)
	c.Metrics = compareMetrics(bruns, nruns, &c.Warnings)
	userCodeRules(bruns, nruns, &c.Warnings)
	res := &Result{Comparison: c}
	n := opt.Functions
	if n <= 0 {
		n = DefaultFunctions
	}
	res.CPU, res.Allocs = compareProfiles(c, bruns, nruns, n)
	c.Predictions = predictions(c, bruns)
	checkThresholds(c, opt.FailOn)
	c.Warnings = dedupe(c.Warnings)
	c.Verdict = verdictOf(c)
	return res, nil
}

// run is one usable run: it has a load result.
type run struct {
	dir         string
	r           *runfmt.Run
	cpu, allocs *profile.Profile
	// uc is the run's rule of user code (its --user-code and --src).
	uc analysis.UserCode
}

func (r run) id() string {
	if r.r.ID != "" {
		return r.r.ID
	}
	return filepath.Base(r.dir)
}

// usable keeps the runs that can be compared, warning about partial runs
// and leaving out those without a load result.
func usable(es []store.Entry, side string, warn *[]string) ([]run, error) {
	var out []run
	noisy, worst := 0, 0.0 // runs measured on a noisy machine, the most other processes used
	for _, e := range es {
		if e.Err != nil {
			return nil, fmt.Errorf("reading %s run %s: %w", side, e.Dir, e.Err)
		}
		if e.Run == nil {
			return nil, fmt.Errorf("reading %s run %s: no run.json", side, e.Dir)
		}
		r := run{dir: e.Dir, r: e.Run, uc: analysis.RunUserCode(e.Run.Profiling)}
		if !measured(e.Run) {
			*warn = append(*warn, fmt.Sprintf("%s run %s measured no requests: left out", side, r.id()))
			continue
		}
		if e.Run.Status == runfmt.StatusPartial {
			reason := e.Run.PartialReason
			if reason == "" {
				reason = "no reason recorded"
			}
			*warn = append(*warn, fmt.Sprintf("%s run %s is partial (%s): included", side, r.id(), reason))
		}
		if e.Run.Status == runfmt.StatusStuck {
			*warn = append(*warn, fmt.Sprintf("%s run %s: its service stopped answering (%s): included", side, r.id(), e.Run.PartialReason))
		}
		if e.Run.Status == runfmt.StatusDegraded {
			*warn = append(*warn, fmt.Sprintf("%s run %s is degraded (%s): its function comparison is limited", side, r.id(), degradedWords(e.Run)))
		}
		if q := e.Run.Quality; q.Noisy() {
			noisy++
			worst = max(worst, q.OtherCores)
		}
		loadProfiles(&r, warn)
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("comparing runs: no %s run with measured requests (of %d given)", side, len(es))
	}
	if noisy > 0 {
		hit := "their latency and throughput are unreliable, their CPU and allocations per request far less"
		if batchRuns(out) {
			hit = "their wall time is unreliable, their CPU far less"
		}
		*warn = append(*warn, fmt.Sprintf("%d of %d %s runs were measured on a noisy machine (other processes used up to %.2f cores): %s", noisy, len(out), side, worst, hit))
	}
	return out, nil
}

func label(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func group(lbl string, runs []run) runfmt.Group {
	g := runfmt.Group{Label: lbl, Runs: []string{}}
	var total float64
	for _, r := range runs {
		g.Runs = append(g.Runs, r.id())
		if r.r.Load != nil { // a batch program's run has none
			total += float64(r.r.Load.Requests)
		}
		if r.r.Quality.Noisy() {
			g.NoisyRuns++
		}
	}
	g.Requests = total / float64(len(runs))
	g.Revision = sharedRevision(runs)
	return g
}

func dedupe(ws []string) []string {
	out := []string{}
	for _, w := range ws {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// degradedWords names what a degraded run lacks: each degradation's
// profile and kind, with its note ("cpu profile timed-out: ...",
// "requests-failed"), or the words of a run before schema 5.
func degradedWords(r *runfmt.Run) string {
	parts := make([]string, 0, len(r.Degradations))
	for _, d := range r.Degradations {
		s := string(d.Why)
		if d.Profile != "" {
			s = string(d.Profile) + " profile " + s
		}
		switch {
		case d.Why == "":
			s = d.Note
		case d.Note != "":
			s += ": " + d.Note
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}
