package cli

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"perflab/internal/lab"
	"perflab/internal/load"
	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// perfHzUsage is --perf-hz's help: each profiler has a default of its own.
var perfHzUsage = func() string {
	perf, asyncProfiler, spy := lab.PerfHz()
	return fmt.Sprintf("sampling frequency of perf, py-spy, rbspy and async-profiler (1 to 10000; default %d Hz for perf, %d for async-profiler, %d for py-spy and rbspy over a window of 10 s or more, faster over a shorter one)",
		perf, asyncProfiler, spy)
}()

// runFlags are the flags of an experiment on a service; run, ab, sweep and
// demo share them.
type runFlags struct {
	load         *loadFlags
	cpus, memory string
	warmup       time.Duration
	ready        string
	readyTimeout time.Duration
	pid          int
	pprof        string
	profiler     string
	perfHz       int
	trace        bool
	noTrace      bool
	noGCTrace    bool
	name         string
	dir          string
	env          []string
	quiet        bool
	force        bool
	cpuFlags     isolationFlags
	deploy       deployFlags
	pgo          pgoFlags
	fs           *pflag.FlagSet
	// out is what the command writes: --format and --json (run and demo),
	// with --md and --junit (run).
	out *reportFlags
}

func newRunFlags() *runFlags {
	f := &runFlags{load: newLoadFlags(), fs: pflag.NewFlagSet("run", pflag.ContinueOnError)}
	fs := f.fs
	v := flagSet{fs}
	v.checked(&f.cpus, "cpus", "", "", "cores", checkCPUs, "CPU budget of the service in `cores` (0.5, 2): cgroup cpu.max / cfs quota (a --pid service is moved into it for the run, and back)")
	v.checked(&f.memory, "memory", "", "", "size", checkMemory, "memory budget of the service (`size`: 512M, 2G): cgroup memory.max (a --pid service is moved into it for the run, and back)")
	v.duration(&f.warmup, "warmup", "", 3*time.Second, 0, maxDuration, "load the service this long before measuring (0 to skip)")
	v.checked(&f.ready, "ready", "", "", "URL", checkHTTPURL, "`URL` that answers once the service is up (default: the load URL)")
	v.duration(&f.readyTimeout, "ready-timeout", "", 30*time.Second, time.Millisecond, 24*time.Hour, "give up if the service is not ready within this")
	v.int(&f.pid, "pid", "", 0, 1, maxPID, "attach to the running service `PID` (and its children) instead of launching one")
	v.checked(&f.pprof, string(runfmt.ProfilerPprof), "", "", "URL", checkHTTPURL, "the service's net/http/pprof base `URL` (default: try the load URL's host, then 127.0.0.1:6060)")
	v.choice(&f.profiler, "profiler", string(lab.ProfilerAuto), runProfilers, profilerUsage(runProfilers))
	v.int(&f.perfHz, "perf-hz", "", 0, 1, 10000, perfHzUsage)
	fs.BoolVar(&f.trace, string(runfmt.ProfileTrace), false, "trace the whole measured window (default: a Go execution trace, or py-spy's idle stacks, of 1-2 s in its middle)")
	fs.BoolVar(&f.noTrace, "no-trace", false, "take no Go execution trace and no off-CPU stacks (no time split per request)")
	fs.BoolVar(&f.noGCTrace, "no-gctrace", false, "do not set GODEBUG=gctrace=1 on the launched service")
	v.checked(&f.name, "name", "", "", "string", checkRunName, "label of the run (default: the command's name)")
	v.checked(&f.dir, "dir", "", store.DefaultRootHelp, "directory", nonEmpty, "`directory` that keeps the runs")
	v.list(&f.env, "env", "e", "stringArray", checkKeyValue, "`KEY=VALUE` for the launched service (repeatable)")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress output")
	f.cpuFlags.register(fs)
	f.deploy.register(fs)
	f.pgo.register(fs)
	return f
}

// registerForce adds --force to a command whose --force means nothing else
// (ab's also compares runs of different URL paths).
func (f *runFlags) registerForce(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.force, "force", false, "profile the --pprof endpoint even when it belongs to another process than the service")
}

func (f *runFlags) addTo(cmd *cobra.Command) {
	cmd.Flags().AddFlagSet(f.load.fs)
	cmd.Flags().AddFlagSet(f.fs)
}

// splitDash separates the URL arguments from the command after "--". An
// argument before it that names a program (a path, or a name found in
// PATH) is a command given without its --: an error that says so; so is
// a -- with no command after it, and a command perflab cannot start
// (checkCommand).
func splitDash(cmd *cobra.Command, args []string) (urls, command []string, err error) {
	urls = args
	if at := cmd.ArgsLenAtDash(); at >= 0 {
		urls, command = args[:at], args[at:]
		if len(command) == 0 {
			return nil, nil, usageErr("no command after --: give the program to launch and its arguments after it (see '%s --help')", cmd.CommandPath())
		}
		if err := checkCommand("--", command); err != nil {
			return nil, nil, err
		}
	}
	for _, a := range urls {
		if looksLikeCommand(a) {
			return nil, nil, usageErr("%q is not a URL: a command for perflab to launch goes after --, as in: %s [flags] URL -- %s ARGS", a, cmd.CommandPath(), quoteArg(a))
		}
	}
	return urls, command, nil
}

// looksLikeCommand says whether an argument is a program rather than a
// URL: a path (./server, /usr/bin/python3) or a name PATH finds (python3),
// never host:port.
func looksLikeCommand(a string) bool {
	if strings.Contains(a, ":") {
		return false
	}
	if strings.HasPrefix(a, "/") || strings.HasPrefix(a, "./") || strings.HasPrefix(a, "../") {
		return true
	}
	_, err := exec.LookPath(a)
	return err == nil
}

// config builds the lab config of one run.
func (f *runFlags) config(env Env, urls, command []string) (lab.Config, error) {
	var c lab.Config
	if f.load.requests > 0 {
		return c, usageErr("-n: perflab run measures a time window: use -d (and --rate for a fixed arrival rate)")
	}
	lc, err := f.load.config(urls)
	if err != nil {
		return c, err
	}
	if lc.Duration == 0 && len(lc.Stages) == 0 {
		lc.Duration = 10 * time.Second
	}
	if !lc.StartAt.IsZero() && f.warmup == 0 {
		return c, usageErr("--start-at with --warmup 0: the shards' warm-ups start at --start-at and their windows right after; give a warm-up")
	}
	budget, err := f.budget()
	if err != nil {
		return c, err
	}
	if f.pid != 0 && len(command) > 0 {
		return c, usageErr("give either --pid or -- CMD, not both")
	}
	if err := f.cpuFlags.check(f.pid); err != nil {
		return c, err
	}
	if f.trace && f.noTrace {
		return c, usageErr("give either --trace or --no-trace, not both")
	}
	ready := f.ready
	if ready == "" && (len(command) > 0 || f.pid > 0) {
		ready = lc.Targets[0].URL.String()
	}
	name := f.name
	if name == "" {
		name = defaultName(command, f.pid)
	}
	st, err := writableStore(f.dir)
	if err != nil {
		return c, err
	}
	c = lab.Config{
		Name: name, Store: st, Load: lc, LoadFlags: f.load.describe(),
		Warmup: f.warmup, Command: command, Env: f.env, PID: f.pid, Budget: budget,
		ReadyURL: ready, ReadyTimeout: f.readyTimeout, Pprof: f.pprof, Profiler: lab.ProfilerChoice(f.profiler),
		PerfHz: f.perfHz, Trace: f.trace, NoTrace: f.noTrace, NoGCTrace: f.noGCTrace, Version: Version, Hurry: env.Hurry,
		Force: f.force, LoadCPUs: f.cpuFlags.load.set,
	}
	return c, f.deploy.apply(&c)
}

// maxPID is the kernel's largest process id (pid_max's limit).
const maxPID = 1 << 22

// runProfilers are --profiler's choices for run, ab, sweep and demo.
var runProfilers = profilerChoices(lab.ProfilerAuto, lab.ProfilerNone)

// profilerUsage is --profiler's help: its words, and what auto does.
func profilerUsage(choices []string) string {
	return "how to profile the service: " + orList(choices) + "; auto takes its net/http/pprof endpoint, " +
		"else samples each process with the profiler of its runtime (perf for a runtime without one)"
}

// profilerChoices are --profiler's words: the first choice, perflab's
// profilers in the order auto tries them, then the rest.
func profilerChoices(first lab.ProfilerChoice, rest ...lab.ProfilerChoice) []string {
	out := []string{string(first)}
	for _, p := range lab.Profilers() {
		out = append(out, string(p))
	}
	for _, c := range rest {
		out = append(out, string(c))
	}
	return out
}

func checkCPUs(s string) error {
	_, err := lab.ParseCPUs(s)
	return err
}

func checkMemory(s string) error {
	_, err := lab.ParseMemory(s)
	return err
}

func defaultName(command []string, pid int) string {
	switch {
	case len(command) > 0:
		parts := strings.Split(command[0], "/")
		return parts[len(parts)-1]
	case pid > 0:
		return fmt.Sprintf("pid%d", pid)
	}
	return "run"
}

func (f *runFlags) budget() (lab.Budget, error) {
	var b lab.Budget
	var err error
	if f.cpus != "" {
		if b.CPUs, err = lab.ParseCPUs(f.cpus); err != nil {
			return b, usageErr("--cpus: %v", err)
		}
	}
	if f.memory != "" {
		if b.MemoryBytes, err = lab.ParseMemory(f.memory); err != nil {
			return b, usageErr("--memory: %v", err)
		}
	}
	b.CPUSet = f.cpuFlags.service.set
	if err := b.Validate(); err != nil {
		return b, usageErr("%v", err)
	}
	return b, nil
}

// hooks wires a run's status lines and live progress to stderr.
func (f *runFlags) hooks(env Env, c *lab.Config) {
	if f.quiet {
		return
	}
	c.Log = func(msg string) { fmt.Fprintf(env.Stderr, "perflab: %s\n", msg) }
	c.Watch = func(a *load.Attacker) func() { return startProgress(env, a).stop }
}

func newRunCmd(env Env) *cobra.Command {
	f := newRunFlags()
	var fm findMaxFlags
	cmd := &cobra.Command{
		Use:   "run [flags] URL [-- CMD ARGS...] | run [flags] -- CMD ARGS...",
		Short: "Launch (or attach to) a service under a budget, load it, profile it, report the cost per request",
		Long: `Launch CMD in a cgroup of its own with --cpus and --memory budgets (or attach
to --pid), wait until it answers, warm it up, then drive the load at URL while
sampling its CPU, memory and throttling and profiling it. The verdict says what
the service consumed, its CPU ms per request, the GC's share, allocations per
request, and where the cost goes (user code first). Everything lands in a run
directory (run.json, profiles/*.pb.gz, target.log).

With --pid and --cpus or --memory, the running service (its threads and
child processes) is moved into a cgroup with that budget for the run and
back into its own cgroups after, Ctrl-C and failures included.

Without a URL or --targets, CMD is a batch program: it runs once under the
budget and is measured until it exits (bounded by --timeout, default 10m):
wall time, CPU, the cores it kept busy of those it could use, peak RSS, its
threads' time from the kernel, its CPU profile (perf) and the findings.`,
		Example: `  perflab run --cpus 1 -c 20 -d 20s http://127.0.0.1:8080/ -- ./server -addr :8080
  perflab run --rate 200 --cpus 2 --memory 512M http://127.0.0.1:8080/search -- ./server
  perflab run --pid 4242 -d 30s http://127.0.0.1:8080/
  perflab run --pid 4242 --cpus 0.5 http://127.0.0.1:8080/
  perflab run --targets requests.txt --cpus 1 -- ./server
  perflab run --find-max --slo "p99<100ms,errors<1%" --cpus 2 http://127.0.0.1:8080/ -- ./server
  perflab run --cpus 2 -- ./trace`,
		RunE: func(cmd *cobra.Command, args []string) error { return runRun(cmd, env, f, fm, args) },
	}
	f.addTo(cmd)
	f.registerForce(cmd)
	fm.register(cmd.Flags())
	f.out = &reportFlags{}
	f.out.register(cmd, runJSONUsage)
	f.out.registerPage(cmd)
	return cmd
}

// runRun is perflab run: a batch program, a find-max, or one run.
func runRun(cmd *cobra.Command, env Env, f *runFlags, fm findMaxFlags, args []string) error {
	urls, command, err := splitDash(cmd, args)
	if err != nil {
		return err
	}
	if !f.load.given(urls) && len(command) > 0 {
		return runBatch(cmd, env, f, command) // a batch program: no load
	}
	c, err := f.config(env, urls, command)
	if err != nil {
		return err
	}
	f.hooks(env, &c)
	if fm.enabled && (f.out.format.is(formatMarkdown, formatJUnit) || f.out.md != "" || f.out.junit != "") {
		return usageErr("--find-max prints its steps as text or json: --format markdown and junit, --md and --junit are for a run's verdict")
	}
	if found, err := findMaxOrCheck(cmd, env, &c, fm, f); found || err != nil {
		return err
	}
	res, err := lab.Run(cmd.Context(), c)
	return f.pgo.write(env, f.quiet, "", results(res), printRun(env, f, res, err))
}

// runJSONUsage is --json's help on run and demo.
const runJSONUsage = "print run.json instead of the text verdict"

// printRun prints a run's result in the chosen format, then writes --md
// and --junit; a partial run is still printed in full.
func printRun(env Env, f *runFlags, res *lab.Result, err error) error {
	if res == nil {
		if interrupted(err) {
			return &exitError{code: ExitInterrupted, err: err}
		}
		return failed(err)
	}
	if werr := f.out.print(env, f.out.runViews(res.Run, res.Dir, f.out.markdownOptions(env, f.dir))); werr != nil {
		return werr
	}
	if err := runError(res, err); err != nil {
		return err
	}
	if res.Run.Load != nil {
		return sloExit(res.Run.Load.SLO, "run "+res.Run.ID)
	}
	return nil
}

// runError maps a run's error to the exit: 130 when Ctrl-C ended it, 2
// when the service named is not the one that answers, 3 when the run is
// partial or could not be saved (its measurements were printed). Its
// message is the one line on stderr a script reads: why, with the run.
func runError(res *lab.Result, err error) error {
	var save *lab.SaveError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &save):
		return failed(fmt.Errorf("run %s: %v: %s (what it measured is printed above)", res.Run.ID, save.Err, save.Path))
	case interrupted(err) || res.Run.Load != nil && res.Run.Load.Interrupted:
		return &exitError{code: ExitInterrupted, err: fmt.Errorf("run %s is partial: %w", res.Run.ID, err)}
	case errors.Is(err, lab.ErrNotTheService):
		return &exitError{code: ExitUsage, err: err}
	case errors.Is(err, lab.ErrStuck):
		return failed(fmt.Errorf("run %s: %w", res.Run.ID, err))
	}
	return failed(fmt.Errorf("run %s is partial: %w", res.Run.ID, err))
}
