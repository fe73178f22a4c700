package gobench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// Config is one perflab bench.
type Config struct {
	// Dir is where the package patterns are resolved ("" for the current
	// directory).
	Dir string
	// Packages are go list patterns ("." when empty).
	Packages []string
	Flags    Flags
	// NoProfiles skips the profile runs.
	NoProfiles bool
	Store      store.Store
	// Name labels the runs (default: "bench-" and the first package's
	// last path element).
	Name string
	// Version is perflab's, recorded in run.json.
	Version string
	// Log reports progress, a line at a time; nil for none.
	Log func(string)
	// Note reports, a line at a time, what changes what is measured (with
	// --git: the uncommitted changes left out); the command shows it even
	// when it shows no progress. nil: Log.
	Note func(string)
}

func (c *Config) defaults() {
	if len(c.Packages) == 0 {
		c.Packages = []string{"."}
	}
	if c.Flags.Pattern == "" {
		c.Flags.Pattern = "."
	}
	if c.Flags.Count <= 0 {
		c.Flags.Count = 1
	}
	if c.Dir == "" {
		c.Dir = "."
	}
}

func (c *Config) log(s string) {
	if c.Log != nil {
		c.Log(s)
	}
}

func (c *Config) note(s string) {
	if c.Note != nil {
		c.Note(s)
		return
	}
	c.log(s)
}

// wildcard says a pattern may bring in packages without benchmarks.
func (c *Config) wildcard() bool {
	for _, p := range c.Packages {
		if strings.Contains(p, "...") {
			return true
		}
	}
	return false
}

// command is the go test command line the timed runs stand for.
func (c *Config) command() []string {
	cmd := []string{goCommand, "test", "-run", "^$", "-bench", c.Flags.Pattern, "-benchmem", "-count", strconv.Itoa(c.Flags.Count)}
	if c.Flags.Benchtime != "" {
		cmd = append(cmd, "-benchtime", c.Flags.Benchtime)
	}
	if c.Flags.CPU != "" {
		cmd = append(cmd, "-cpu", c.Flags.CPU)
	}
	cmd = append(cmd, "-timeout", c.Flags.Timeout.String())
	return append(cmd, c.Packages...)
}

// Stored is a run perflab bench wrote.
type Stored struct {
	Dir string
	Run *runfmt.Run
}

// Run benchmarks cfg's packages: it builds each test binary, runs the
// timed runs (-count in one process, as go test does), then each
// benchmark's profile runs, and writes the run directory. On an error in
// the timed runs (Ctrl-C, a benchmark that fails) what completed is
// written, as a partial run, and returned with the error.
func Run(ctx context.Context, cfg Config) (*Stored, error) {
	cfg.defaults()
	bins, cleanup, err := binDir()
	if err != nil {
		return nil, err
	}
	defer cleanup()
	s, err := prepare(ctx, &cfg, cfg.Dir, bins, "")
	if err != nil {
		return nil, err
	}
	rec, err := newRecord(ctx, &cfg, s, s.name())
	if err != nil {
		return nil, err
	}
	cfg.log(fmt.Sprintf("running %d benchmark binaries, -count %d", len(s.bins), cfg.Flags.Count))
	runErr := s.timedRun(ctx, cfg.Flags)
	if runErr == nil {
		runErr = s.checkResults(&cfg)
	}
	return rec.finish(ctx, &cfg, s, runErr)
}

// binDir is where the test binaries are built: perflab's directory in the
// user's cache, kept between runs so that an unchanged package is not
// linked again (half a second or more of every run); a temporary
// directory, removed at the end, when there is no cache to write in.
func binDir() (dir string, cleanup func(), err error) {
	if cache, err := os.UserCacheDir(); err == nil {
		dir = filepath.Join(cache, "perflab", "bench")
		if os.MkdirAll(dir, 0o755) == nil {
			return dir, func() {}, nil
		}
	}
	dir, err = os.MkdirTemp("", "perflab-bench-")
	if err != nil {
		return "", nil, err
	}
	return dir, func() { _ = os.RemoveAll(dir) }, nil
}

// record is a run directory being written.
type record struct {
	dir string
	run *runfmt.Run
}

// newRecord creates the run directory of side s.
func newRecord(ctx context.Context, cfg *Config, s *side, def string) (*record, error) {
	name := cfg.Name
	if name == "" {
		name = def
	}
	start := time.Now()
	dir, id, err := cfg.Store.Create(name, start)
	if err != nil {
		return nil, err
	}
	r := &runfmt.Run{SchemaVersion: runfmt.SchemaVersion, Name: name, ID: id, Started: start, Status: runfmt.StatusComplete,
		Config: runfmt.Config{Command: cfg.command()}, Env: environment(ctx, cfg.Version, s.dir, s.bins[0].Path), Revision: s.rev}
	r.Bench = &runfmt.Bench{Pattern: cfg.Flags.Pattern, Count: cfg.Flags.Count, Benchtime: cfg.Flags.Benchtime,
		CPU: cfg.Flags.CPU, Timeout: cfg.Flags.Timeout.String()}
	return &record{dir: dir, run: r}, nil
}

// finish writes what the timed runs measured, takes the profiles (when
// they completed), and writes the run again.
func (rec *record) finish(ctx context.Context, cfg *Config, s *side, runErr error) (*Stored, error) {
	rec.fill(s, runErr)
	if err := rec.write(); err != nil {
		return nil, errors.Join(runErr, err)
	}
	if runErr != nil {
		return &Stored{Dir: rec.dir, Run: rec.run}, runErr
	}
	if err := rec.profile(ctx, cfg, s); err != nil {
		return &Stored{Dir: rec.dir, Run: rec.run}, err
	}
	return &Stored{Dir: rec.dir, Run: rec.run}, nil
}

// fill records the side's timed results; an error makes the run partial.
func (rec *record) fill(s *side, runErr error) {
	b := rec.run.Bench
	b.Packages, b.Benchmarks = s.packages(), s.col.benchmarks()
	b.TimedS, b.BuildS = s.timedS, s.buildS
	if runErr != nil {
		rec.run.Status, rec.run.PartialKind = runfmt.StatusPartial, runfmt.PartialFailed
		if errors.Is(runErr, context.Canceled) {
			rec.run.PartialKind = runfmt.PartialInterrupted
		}
		rec.run.PartialReason = partialReason(runErr, s.runs, b.Count)
	}
}

func partialReason(err error, done, want int) string {
	if errors.Is(err, context.Canceled) {
		return fmt.Sprintf("interrupted (Ctrl-C) after %d of %d timed runs", done, want)
	}
	return oneLine(err.Error())
}

// profile takes the side's profiles into the run and writes it again.
func (rec *record) profile(ctx context.Context, cfg *Config, s *side) error {
	b := rec.run.Bench
	if cfg.NoProfiles {
		b.ProfilesNote = "not taken (--no-profiles)"
		return nil
	}
	cfg.log(fmt.Sprintf("profiling %d benchmarks, each in runs of its own", len(b.Benchmarks)))
	refs, failed, err := s.profile(ctx, cfg.Flags, rec.dir, b.Benchmarks)
	rec.run.Profiles, b.ProfileS = refs, s.profileS
	if len(failed) > 0 {
		rec.run.Status = runfmt.StatusDegraded
		for _, msg := range failed {
			rec.run.Degradations = append(rec.run.Degradations, runfmt.Degradation{Why: runfmt.DegradeFailed, Note: msg})
		}
	}
	if err != nil {
		b.ProfilesNote = "interrupted (Ctrl-C): the benchmarks after the last profiled one have none"
		rec.run.Status = runfmt.StatusDegraded
		rec.run.Degradations = append(rec.run.Degradations, runfmt.Degradation{Why: runfmt.DegradeInterrupted})
	}
	return errors.Join(err, rec.write())
}

func (rec *record) write() error {
	if err := runfmt.WriteFile(rec.dir, rec.run); err != nil {
		return fmt.Errorf("writing %s: %w", rec.dir, err)
	}
	return nil
}
