package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"perflab/internal/analysis"
	"perflab/internal/lab"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// profileFlags are the flags of `perflab profile`.
type profileFlags struct {
	pprof, profiler string
	pid, perfHz     int
	seconds         float64
	cpus, memory    string
	ready           string
	env             []string
	name, dir       string
	trace, json     bool
	quiet           bool
	force           bool
	deploy          deployFlags
}

func (f *profileFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.pprof, "pprof", "", "the service's net/http/pprof base `URL` (e.g. http://127.0.0.1:6060)")
	fs.IntVar(&f.pid, "pid", 0, "sample the running process `PID` (and its children) with perf, py-spy or rbspy")
	fs.Float64Var(&f.seconds, "seconds", 10, "length of the capture in `seconds`")
	fs.StringVar(&f.profiler, "profiler", lab.ProfilerAuto, "auto, pprof, perf, py-spy or rbspy")
	fs.IntVar(&f.perfHz, "perf-hz", 99, "sampling frequency of perf, py-spy and rbspy")
	fs.StringVar(&f.cpus, "cpus", "", "CPU budget in `cores` of a service launched with -- CMD")
	fs.StringVar(&f.memory, "memory", "", "memory budget (`size`: 512M, 2G) of a service launched with -- CMD")
	fs.StringVar(&f.ready, "ready", "", "with -- CMD: wait until this `URL` answers before profiling")
	fs.StringArrayVarP(&f.env, "env", "e", nil, "`KEY=VALUE` for the launched service (repeatable)")
	fs.BoolVar(&f.trace, "trace", false, "also capture a Go execution trace (pprof endpoint only)")
	fs.StringVar(&f.name, "name", "", "label of the run (default: profile)")
	fs.StringVar(&f.dir, "dir", store.DefaultRoot, "`directory` that keeps the runs")
	fs.BoolVar(&f.json, "json", false, "print run.json instead of the text summary")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress output")
	fs.BoolVar(&f.force, "force", false, "profile the --pprof endpoint even when it belongs to another process than --pid or -- CMD")
	f.deploy.register(fs)
}

func newProfileCmd(env Env) *cobra.Command {
	var f profileFlags
	cmd := &cobra.Command{
		Use:   "profile (--pprof URL | --pid PID | -- CMD ARGS...)",
		Short: "Capture profiles only (no load): from a pprof endpoint or by sampling a process",
		Long: `Capture the profiles of a service for --seconds while something else loads
it: from its net/http/pprof endpoint (CPU, allocations over the window, heap,
goroutines, mutex and block when enabled), or by sampling any process with
perf (native code and perf map files), py-spy (Python) or rbspy (Ruby).
The result is a run directory without load figures (run.json, profiles/*.pb.gz,
report.html); read it with 'perflab top' and 'perflab flame'.`,
		Example: `  perflab profile --pprof http://127.0.0.1:6060 --seconds 30
  perflab profile --pid 4242 --seconds 10
  perflab profile --profiler py-spy --pid 4242
  perflab profile --ready http://127.0.0.1:8080/healthz -- ./server -addr :8080`,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := f.config(env, cmd, args)
			if err != nil {
				return err
			}
			res, err := lab.Profile(cmd.Context(), c, time.Duration(f.seconds*float64(time.Second)))
			return f.print(env, res, err)
		},
	}
	f.register(cmd)
	return cmd
}

// config checks the flags and builds the lab config of the capture.
func (f *profileFlags) config(env Env, cmd *cobra.Command, args []string) (lab.Config, error) {
	var c lab.Config
	urls, command := splitDash(cmd, args)
	if len(urls) > 0 {
		return c, usageErr("unexpected argument %q: perflab profile takes --pprof URL, --pid PID or -- CMD", urls[0])
	}
	sources := 0
	for _, set := range []bool{f.pprof != "", f.pid != 0, len(command) > 0, f.deploy.cgroup != ""} {
		if set {
			sources++
		}
	}
	switch {
	case sources == 0:
		return c, usageErr("nothing to profile: give --pprof URL, --pid PID, --cgroup PATH or -- CMD")
	case f.pid != 0 && len(command) > 0:
		return c, usageErr("give either --pid or -- CMD, not both")
	case f.pid < 0:
		return c, usageErr("--pid %d: not a process id", f.pid)
	case f.seconds <= 0 || f.seconds > 3600:
		return c, usageErr("--seconds %g: must be more than 0 and at most 3600", f.seconds)
	case f.perfHz < 1 || f.perfHz > 10000:
		return c, usageErr("--perf-hz %d: must be from 1 to 10000", f.perfHz)
	}
	switch f.profiler {
	case lab.ProfilerAuto, lab.ProfilerPprof, lab.ProfilerPerf, lab.ProfilerPySpy, lab.ProfilerRbSpy:
	default:
		return c, usageErr("--profiler %q: want auto, pprof, perf, py-spy or rbspy", f.profiler)
	}
	if f.profiler == lab.ProfilerPprof && f.pprof == "" {
		return c, usageErr("--profiler pprof needs --pprof URL")
	}
	if f.profiler != lab.ProfilerAuto && f.profiler != lab.ProfilerPprof && f.pid == 0 && len(command) == 0 && f.deploy.cgroup == "" {
		return c, usageErr("--profiler %s samples a process: give --pid PID or -- CMD", f.profiler)
	}
	budget, err := (&runFlags{cpus: f.cpus, memory: f.memory}).budget()
	if err != nil {
		return c, err
	}
	if len(command) == 0 && (budget.CPUs > 0 || budget.MemoryBytes > 0) {
		return c, usageErr("--cpus and --memory apply to a service perflab launches (-- CMD)")
	}
	for _, kv := range f.env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return c, usageErr("--env %q: want KEY=VALUE", kv)
		}
	}
	name := f.name
	if name == "" {
		name = "profile"
		if f.pid != 0 || len(command) > 0 {
			name += "-" + defaultName(command, f.pid)
		}
	}
	c = lab.Config{
		Name: name, Store: store.Store{Root: f.dir}, Command: command, Env: f.env, PID: f.pid,
		Budget: budget, ReadyURL: f.ready, Pprof: f.pprof, Profiler: f.profiler, PerfHz: f.perfHz,
		Trace: f.trace, Version: Version, Force: f.force,
	}
	if !f.quiet {
		c.Log = func(msg string) { fmt.Fprintf(env.Stderr, "perflab: %s\n", msg) }
	}
	return c, f.deploy.apply(&c)
}

// print writes the capture's summary: the saved profiles and the CPU top
// table of the user's code.
func (f *profileFlags) print(env Env, res *lab.Result, err error) error {
	if res == nil {
		return failed(err)
	}
	r := res.Run
	if f.json {
		if werr := writeJSON(env.Stdout, r); werr != nil {
			return failed(werr)
		}
	} else if werr := writeProfileSummary(env, r, res.Dir); werr != nil {
		return failed(werr)
	}
	if err != nil {
		if errors.Is(err, lab.ErrNotTheService) {
			return &exitError{code: ExitUsage, err: err}
		}
		return failed(fmt.Errorf("run %s is partial: %w", r.ID, err))
	}
	return nil
}

func writeProfileSummary(env Env, r *runfmt.Run, dir string) error {
	w := env.Stdout
	if err := report.WriteHeadline(w, r); err != nil {
		return err
	}
	if t := r.Target; t != nil {
		fmt.Fprintf(w, "CPU used: mean %.2f cores, max %.2f (measured from %s)\n", t.CPUCoresMean, t.CPUCoresMax, t.Source)
	}
	if pr := r.Profiling; pr != nil {
		for _, n := range pr.Notes {
			fmt.Fprintf(w, "Profiling: %s\n", n)
		}
		if pr.NotRepresentative != "" {
			fmt.Fprintf(w, "NOT REPRESENTATIVE: %s\n", pr.NotRepresentative)
		}
		if line := report.ProcessLine(pr.Processes); line != "" {
			fmt.Fprintf(w, "Processes: %s\n", line)
		}
	}
	for _, p := range r.Profiles {
		if p.Type != "cpu" || r.Profiling != nil && r.Profiling.NotRepresentative != "" {
			continue
		}
		if p.Samples == 0 {
			fmt.Fprintf(w, "\nThe CPU profile (%s) has no samples: the service was idle (load it while profiling).\n", p.Source)
			continue
		}
		t, err := analysis.TopFile(filepath.Join(dir, p.File), analysis.TopOptions{User: true, N: 10})
		if err != nil {
			return fmt.Errorf("reading the CPU profile: %w", err)
		}
		fmt.Fprintf(w, "\nTop user-code functions (%s, %d samples):\n", p.Source, p.Samples)
		if err := t.WriteText(w); err != nil {
			return err
		}
	}
	for i, fd := range r.Findings {
		if i == 0 {
			fmt.Fprintf(w, "\nFindings:\n")
		}
		if i == 5 {
			break
		}
		fmt.Fprintf(w, "  %d. [%s] %s\n", i+1, fd.Kind, fd.Title)
	}
	fmt.Fprintf(w, "\nRun %s: %s", r.ID, r.Status)
	if r.PartialReason != "" {
		fmt.Fprintf(w, " (%s)", r.PartialReason)
	}
	fmt.Fprintf(w, "\n")
	for _, p := range r.Profiles {
		fmt.Fprintf(w, "  %-10s %s\n", p.Type, filepath.Join(dir, p.File))
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
	return nil
}
