package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/prose"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// batchConfig runs command as a batch program, its runs in a temporary
// store.
func batchConfig(t *testing.T, command ...string) BatchConfig {
	t.Helper()
	return BatchConfig{Config: Config{
		Name: "rsscount", Store: store.Store{Root: t.TempDir()}, Command: command,
		StopGrace: time.Second, Log: func(msg string) { t.Log(msg) },
	}, Timeout: 2 * time.Minute}
}

// TestBatchSerialProgram is seed 002's batch program: rsscount counts a
// word in 4000 RSS documents with xml.Unmarshal on one goroutine. The run
// completes; the user's function that does the work, main.freq, is among
// the first three hot functions with its line, encoding/xml under it; the
// serial finding gives the cores figures. On a machine busy with other
// work the program may get less than its one core: a run perflab found
// noisy whose serial finding is missing or under half a core is measured
// again.
func TestBatchSerialProgram(t *testing.T) {
	labtest.RequireRoot(t, "cgroups, perf and eBPF")
	if runtime.NumCPU() < 2 {
		t.Skip("the serial finding needs a machine of 2 cores or more")
	}
	bin := labtest.BuildService(t, "rsscount")
	var r *runfmt.Run
	labtest.Clean(t, func(int) string {
		res, err := RunBatch(context.Background(), batchConfig(t, bin, "-mode", "buggy"))
		if err != nil {
			t.Fatalf("RunBatch: %v", err)
		}
		r = readRun(t, res)
		if cores := serialCores(r); cores < 0.5 && r.Quality.Noisy() {
			return fmt.Sprintf("the serial finding's cores %.2f (%.2f cores busy), on a machine perflab found noisy: %s", cores, r.Batch.CoresMean, report.QualityLine(r.Quality))
		}
		return ""
	})
	b := r.Batch
	t.Logf("wall %.2f s, CPU %.2f s, %.2f cores of %d, waiting for a CPU %.2f s (%s), peak RSS %d B, cost %+v",
		b.WallS, b.CPUS, b.CoresMean, b.Cores.Usable, b.RunnableS, b.RunnableSource, b.RSSMaxBytes, *b.Cost)
	if r.Status != runfmt.StatusComplete || b.ExitCode == nil || *b.ExitCode != 0 || !slices.Contains(b.LastLines, "Searching 4000 files, found president 27732 times.") {
		t.Fatalf("status %s (%s), exit %v, last lines %q; want a complete run of its whole output", r.Status, r.PartialReason, b.ExitStatus, b.LastLines)
	}
	checkHotFreq(t, r.Hot)
	checkSerial(t, r)
	checkBatchFigures(t, b)
}

// checkHotFreq: main.freq among the first three user functions, with the
// line that calls xml.Unmarshal, and encoding/xml the biggest callee.
func checkHotFreq(t *testing.T, hot []runfmt.HotFunc) {
	t.Helper()
	var names []string
	for _, h := range hot {
		if !h.UserCode {
			continue
		}
		names = append(names, h.Function)
		if h.Function != "main.freq" {
			continue
		}
		if len(names) > 3 {
			break
		}
		if len(h.Lines) == 0 || !strings.HasSuffix(h.Lines[0].File, "rsscount/main.go") || !strings.Contains(h.Lines[0].Text, "xml.Unmarshal") {
			t.Errorf("main.freq's first line %+v; want main.go's xml.Unmarshal call", h.Lines)
		}
		if !strings.HasPrefix(h.AttributedSample, "encoding/xml.") {
			t.Errorf("main.freq's biggest callee %q; want encoding/xml", h.AttributedSample)
		}
		return
	}
	t.Errorf("main.freq not among the first 3 user functions: %v", names)
}

// serialCores is the cores figure of the run's serial finding, 0 if it
// has none.
func serialCores(r *runfmt.Run) float64 {
	for _, f := range r.Findings {
		if f.Kind == runfmt.FindingSerial {
			return f.Figures[runfmt.FigCoresMean]
		}
	}
	return 0
}

// checkSerial: the serial finding, one core of the two or more it could
// use.
func checkSerial(t *testing.T, r *runfmt.Run) {
	t.Helper()
	b := r.Batch
	for _, f := range r.Findings {
		if f.Kind != runfmt.FindingSerial {
			continue
		}
		w := prose.Wording(&f)
		title, detail := w.Title.Text(), w.Detail.Text()
		if cores := f.Figures[runfmt.FigCoresMean]; cores < 0.5 || cores > 1.3 || b.Cores.Usable < 2 || !strings.HasPrefix(title, "serial: ") ||
			!strings.Contains(title, " cores busy") || !slices.Contains(f.Names(), "main.freq") || !strings.Contains(detail, "GOMAXPROCS") {
			t.Errorf("serial finding %q: %q, %+v (cores %+v); want about 1 core of %d busy, main.freq named", title, detail, f, b.Cores, b.Cores.Usable)
		}
		return
	}
	t.Errorf("no serial finding in %+v (%.2f cores used of %d, %.2f threads waiting for a CPU)", r.Findings, b.CoresMean, b.Cores.Usable, b.RunnableS/b.WallS)
}

// checkBatchFigures: the figures add up and are the program's.
func checkBatchFigures(t *testing.T, b *runfmt.Batch) {
	t.Helper()
	if b.WallS <= 0 || b.CPUS <= 0 || b.CPUS != b.UserS+b.SystemS || b.RSSMaxBytes < 1<<20 || b.RSSMaxBytes > 1<<30 {
		t.Errorf("wall %g s, CPU %g s (user %g + system %g), peak RSS %d B; want the program's", b.WallS, b.CPUS, b.UserS, b.SystemS, b.RSSMaxBytes)
	}
	if b.Threads == nil {
		t.Logf("thread time not measured: %s", b.ThreadsNote)
		return
	}
	var onCPU float64
	for _, s := range b.Threads.States {
		if s.State == runfmt.ThreadOnCPU {
			onCPU = s.Seconds
		}
	}
	if got := onCPU + b.Threads.NotSeenCPUS; got < 0.95*b.CPUS || got > 1.05*b.CPUS {
		t.Errorf("on-CPU %g s + not seen %g s = %g s; want the program's CPU %g s within 5%%", onCPU, b.Threads.NotSeenCPUS, got, b.CPUS)
	}
}

// TestBatchExitStatus: a program that exits non-zero after running leaves
// a partial run saying its status and its last words; one that is not
// found leaves no run and names it.
func TestBatchExitStatus(t *testing.T) {
	labtest.RequireRoot(t, "cgroups")
	cfg := batchConfig(t, "sh", "-c", "echo working; sleep 0.6; echo gave up >&2; exit 4")
	cfg.Profiler = ProfilerNone
	res, err := RunBatch(context.Background(), cfg)
	var be *BatchExitError
	if !errors.As(err, &be) || be.Status != "exit status 4" || be.AtOnce || !slices.Equal(be.LastLines, []string{"working", "gave up"}) {
		t.Fatalf("RunBatch error %v; want exit status 4 with its last lines", err)
	}
	r := readRun(t, res)
	if r.Status != runfmt.StatusPartial || *r.Batch.ExitCode != 4 || r.Batch.WallS < 0.6 {
		t.Errorf("status %s, exit %v, wall %g s; want partial, 4, the 0.6 s it ran", r.Status, r.Batch.ExitStatus, r.Batch.WallS)
	}
	if _, err := RunBatch(context.Background(), batchConfig(t, "./no-such-program")); err == nil || !strings.Contains(err.Error(), "no-such-program") {
		t.Errorf("a program that is not there: %v; want an error naming it", err)
	}
	entries, _ := os.ReadDir(cfg.Store.Root)
	if len(entries) != 1 {
		t.Errorf("%d run directories; want the one of the program that ran", len(entries))
	}
}

// TestBatchTimeout: a program that runs past the timeout is stopped; the
// run is partial and says so.
func TestBatchTimeout(t *testing.T) {
	labtest.RequireRoot(t, "cgroups")
	cfg := batchConfig(t, "sleep", "30")
	cfg.Timeout, cfg.Profiler = 300*time.Millisecond, ProfilerNone
	start := time.Now()
	res, err := RunBatch(context.Background(), cfg)
	var be *BatchExitError
	if !errors.As(err, &be) || be.Timeout != cfg.Timeout {
		t.Fatalf("RunBatch error %v; want the timeout", err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %s to stop a program at a 300 ms timeout", took)
	}
	if r := readRun(t, res); !r.Batch.TimedOut || r.Status != runfmt.StatusPartial {
		t.Errorf("timed out %v, status %s; want a partial run that says it timed out", r.Batch.TimedOut, r.Status)
	}
}

// TestBatchInterrupted: Ctrl-C stops the program; the run is written,
// partial, as interrupted, with what was measured until then.
func TestBatchInterrupted(t *testing.T) {
	labtest.RequireRoot(t, "cgroups")
	cfg := batchConfig(t, "sleep", "30")
	cfg.Profiler = ProfilerNone
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg.Log = func(msg string) {
		if strings.HasPrefix(msg, "running ") {
			cancel() // Ctrl-C once the program runs
		}
	}
	res, err := RunBatch(ctx, cfg)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("RunBatch error %v; want ErrInterrupted", err)
	}
	r := readRun(t, res)
	if !r.Batch.Interrupted || r.Status != runfmt.StatusPartial || r.Batch.WallS <= 0 || r.Batch.WallS > 20 {
		t.Errorf("interrupted %v, status %s, wall %g s; want a partial run of the time it ran", r.Batch.Interrupted, r.Status, r.Batch.WallS)
	}
}
