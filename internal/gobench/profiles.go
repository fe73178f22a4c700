package gobench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
)

// Profile run settings.
const (
	// maxRecorded bounds the allocations the smaller allocation-profile
	// run records (the larger records twice as many): every one costs a
	// stack walk, microseconds on a busy machine. Every allocation is
	// recorded, so more iterations would not make the figures more exact.
	maxRecorded = 10_000
	// maxLines is how many of the user's lines a profile lists.
	maxLines = 5
	// cpuShare is the part of one timed run the CPU profile run lasts (1
	// in cpuShare): at -count 6 the CPU profiles add 4% to the timed runs,
	// where a whole timed run added 17%.
	cpuShare = 4
	// cpuMinRun is the least work the CPU profile run makes, 10 samples at
	// 100 Hz (unless a whole timed run is shorter).
	cpuMinRun = 100 * time.Millisecond
)

// only is the -test.bench pattern that selects benchmark r alone: each
// level anchored, as the testing package matches them.
func only(r Result) string {
	parts := []string{"^Benchmark" + regexp.QuoteMeta(r.Base) + "$"}
	for _, s := range r.Sub {
		parts = append(parts, "^"+regexp.QuoteMeta(s)+"$")
	}
	return strings.Join(parts, "/")
}

// profileRun runs benchmark r alone for iters iterations with extra
// profile flags, and returns the iterations it made.
func (b *Binary) profileRun(ctx context.Context, r Result, iters int, f Flags, extra ...string) (int, error) {
	args := append([]string{"-test.run=^$", "-test.bench=" + only(r), "-test.benchmem", "-test.count=1",
		"-test.benchtime=" + strconv.Itoa(max(1, iters)) + "x", "-test.cpu=" + strconv.Itoa(r.Procs),
		"-test.timeout=" + f.Timeout.String()}, extra...)
	p, err := b.Run(ctx, args, f.Timeout)
	if err != nil {
		return 0, err
	}
	for _, res := range p.Results {
		if res.Name == r.Name {
			return res.Iters, nil
		}
	}
	return 0, fmt.Errorf("the profile run of %s printed no result for it", r.Name)
}

// cpuProfile takes benchmark r's CPU profile over iters iterations into
// path and reads the user's lines from it.
func (b *Binary) cpuProfile(ctx context.Context, r Result, iters int, f Flags, path string) (*runfmt.BenchProfile, error) {
	ops, err := b.profileRun(ctx, r, iters, f, "-test.cpuprofile="+path)
	if err != nil {
		return nil, err
	}
	t, err := analysis.TopFile(path, b.topOptions(runfmt.CPUSample))
	if err != nil {
		return nil, fmt.Errorf("reading the CPU profile of %s: %w", r.Name, err)
	}
	cpu := perIteration(t, nil, float64(ops))
	samples := (t.Total + cpuPeriod/2) / cpuPeriod
	return &runfmt.BenchProfile{Ops: int64(ops), PerOp: cpu.total, UserPerOp: cpu.user, Lines: topLines(cpu, nil),
		Method: fmt.Sprintf("CPU profile of %d iterations in a run of its own (%d samples at 100 Hz)", ops, samples)}, nil
}

// allocProfile records every allocation of benchmark r over k and 2k
// iterations and reads the user's lines from the difference, per
// iteration; the 2k profile is kept at path.
func (b *Binary) allocProfile(ctx context.Context, r Result, k int, f Flags, path string) (*runfmt.BenchProfile, error) {
	small := path + ".k"
	defer os.Remove(small)
	opsK, err := b.profileRun(ctx, r, k, f, "-test.memprofile="+small, "-test.memprofilerate=1")
	if err != nil {
		return nil, err
	}
	ops2K, err := b.profileRun(ctx, r, 2*k, f, "-test.memprofile="+path, "-test.memprofilerate=1")
	if err != nil {
		return nil, err
	}
	if ops2K <= opsK {
		return nil, fmt.Errorf("the allocation profile runs of %s made %d and %d iterations: nothing to difference", r.Name, opsK, ops2K)
	}
	var tabs [2][2]*analysis.Table // [k, 2k][bytes, objects]
	for i, p := range []string{small, path} {
		for j, sample := range []string{"alloc_space", "alloc_objects"} {
			if tabs[i][j], err = analysis.TopFile(p, b.topOptions(sample)); err != nil {
				return nil, fmt.Errorf("reading the allocation profile of %s: %w", r.Name, err)
			}
		}
	}
	ops := float64(ops2K - opsK)
	bytes, objects := perIteration(tabs[1][0], tabs[0][0], ops), perIteration(tabs[1][1], tabs[0][1], ops)
	return &runfmt.BenchProfile{Ops: int64(ops2K - opsK), PerOp: bytes.total, ObjectsPerOp: objects.total, UserPerOp: bytes.user,
		Lines:  topLines(bytes, &objects),
		Method: fmt.Sprintf("every allocation recorded (-memprofilerate=1) in runs of %d and %d iterations of their own; per iteration: their difference over %d", opsK, ops2K, ops2K-opsK)}, nil
}

// cpuPeriod is the nanoseconds of one sample of the test binary's CPU
// profile (-test.cpuprofile samples at 100 Hz).
const cpuPeriod = int64(10 * time.Millisecond)

func (b *Binary) topOptions(sample string) analysis.TopOptions {
	return analysis.TopOptions{SampleIndex: sample, User: true, Lines: true, UserCode: b.Pkg.UserCode()}
}

type lineKey struct {
	fn, file string
	line     int64
}

// perOp is a top table by line (user code charged with what it called)
// per iteration: each of the user's lines, what they hold together, and
// the whole.
type perOp struct {
	lines       map[lineKey]float64
	user, total float64
}

// perIteration is t, less base when set, over ops. The rest (the runtime,
// the testing package) counts for at least 0 in the whole: a difference
// of two runs can leave the runtime's own allocations slightly negative.
func perIteration(t, base *analysis.Table, ops float64) perOp {
	p := perOp{lines: map[lineKey]float64{}}
	var other float64
	add := func(tb *analysis.Table, sign float64) {
		for _, r := range tb.Rows {
			v := sign * float64(r.Flat) / ops
			if r.User {
				p.lines[lineKey{r.Function, r.File, r.Line}] += v
			} else {
				other += v
			}
		}
	}
	add(t, 1)
	if base != nil {
		add(base, -1)
	}
	for k, v := range p.lines {
		if v <= 0 {
			delete(p.lines, k)
			continue
		}
		p.user += v
	}
	p.total = p.user + max(0, other)
	return p
}

// topLines is p's costliest maxLines lines, with their source text and,
// when objects is set, their allocations per iteration.
func topLines(p perOp, objects *perOp) []runfmt.BenchLine {
	lines := []runfmt.BenchLine{}
	for k, v := range p.lines {
		l := runfmt.BenchLine{Function: k.fn, File: k.file, Line: k.line, PerOp: v, Pct: 100 * v / p.total}
		if objects != nil {
			l.ObjectsPerOp = objects.lines[k]
		}
		lines = append(lines, l)
	}
	sort.Slice(lines, func(i, j int) bool {
		if lines[i].PerOp != lines[j].PerOp {
			return lines[i].PerOp > lines[j].PerOp
		}
		return lines[i].File < lines[j].File || lines[i].File == lines[j].File && lines[i].Line < lines[j].Line
	})
	if len(lines) > maxLines {
		lines = lines[:maxLines]
	}
	addText(lines)
	return lines
}

// addText reads each line's source text.
func addText(lines []runfmt.BenchLine) {
	var src analysis.Sources
	for i := range lines {
		if text, ok := src.File(lines[i].File).Line(lines[i].Line); ok {
			lines[i].Text = strings.TrimSpace(text)
		}
	}
}

// profilePath is where a benchmark's profile goes in the run directory:
// abs is absolute, since the test binary writes it from its package's
// directory, and rel is relative to the run directory.
func profilePath(runDir string, pkgIndex int, r Result, kind runfmt.ProfileType) (abs, rel string) {
	name := fmt.Sprintf("%d-%s.%s.pb.gz", pkgIndex+1, unsafeFile.ReplaceAllString(r.Name, "_"), kind)
	rel = filepath.Join("profiles", name)
	if d, err := filepath.Abs(runDir); err == nil {
		runDir = d
	}
	return filepath.Join(runDir, rel), rel
}

var unsafeFile = regexp.MustCompile(`[^A-Za-z0-9._=-]+`)
