package cli

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"perflab/internal/lab"
	"perflab/internal/profview"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// profileProfilers are --profiler's choices for perflab profile.
var profileProfilers = profilerChoices(lab.ProfilerAuto)

// profileFlags are the flags of `perflab profile`.
type profileFlags struct {
	pprof, profiler string
	pid, perfHz     int
	seconds         float64
	cpus, memory    string
	ready           string
	env             []string
	name, dir       string
	trace           bool
	format          *formatFlag
	quiet           bool
	force           bool
	deploy          deployFlags
}

func (f *profileFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	v := flagSet{fs}
	v.checked(&f.pprof, string(runfmt.ProfilerPprof), "", "", "URL", checkHTTPURL, "the service's net/http/pprof base `URL` (e.g. http://127.0.0.1:6060)")
	v.int(&f.pid, "pid", "", 0, 1, maxPID, "sample the running process `PID` (and its children) with perf, py-spy or rbspy")
	v.float(&f.seconds, "seconds", "", 10, 0.001, 3600, "length of the capture in `seconds` (at most 3600)")
	v.choice(&f.profiler, "profiler", string(lab.ProfilerAuto), profileProfilers, profilerUsage(profileProfilers))
	v.int(&f.perfHz, "perf-hz", "", 0, 1, 10000, perfHzUsage)
	v.checked(&f.cpus, "cpus", "", "", "cores", checkCPUs, "CPU budget in `cores` of a service launched with -- CMD")
	v.checked(&f.memory, "memory", "", "", "size", checkMemory, "memory budget (`size`: 512M, 2G) of a service launched with -- CMD")
	v.checked(&f.ready, "ready", "", "", "URL", checkHTTPURL, "with -- CMD: wait until this `URL` answers before profiling")
	v.list(&f.env, "env", "e", "stringArray", checkKeyValue, "`KEY=VALUE` for the launched service (repeatable)")
	fs.BoolVar(&f.trace, string(runfmt.ProfileTrace), false, "also capture a Go execution trace (pprof endpoint only)")
	v.checked(&f.name, "name", "", "", "string", checkRunName, "label of the run (default: profile)")
	v.checked(&f.dir, "dir", "", store.DefaultRootHelp, "directory", nonEmpty, "`directory` that keeps the runs")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress output")
	fs.BoolVar(&f.force, "force", false, "profile the --pprof endpoint even when it belongs to another process than --pid or -- CMD")
	f.deploy.register(fs)
	f.format = addFormatFlag(cmd, "print run.json instead of the text summary", formatText, formatJSON)
}

func newProfileCmd(env Env) *cobra.Command {
	var f profileFlags
	cmd := &cobra.Command{
		Use:   "profile (--pprof URL | --pid PID | -- CMD ARGS...)",
		Short: "Capture profiles only (no load): from a pprof endpoint or by sampling a process",
		Long: `Capture the profiles of a service for --seconds while something else loads
it: from its net/http/pprof endpoint (CPU, allocations over the window, heap,
goroutines, mutex and block when enabled), or by sampling any process with
perf (native code and perf map files), py-spy (Python), rbspy (Ruby) or V8's
profiler (node, through its inspector, opened on 127.0.0.1 and closed after).
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

// profileCommand is the command after --; profile takes no URL.
func profileCommand(cmd *cobra.Command, args []string) ([]string, error) {
	urls, command, err := splitDash(cmd, args)
	if err == nil && len(urls) > 0 {
		err = usageErr("unexpected argument %q: perflab profile takes --pprof URL, --pid PID or -- CMD", urls[0])
	}
	return command, err
}

// config checks the flags and builds the lab config of the capture.
func (f *profileFlags) config(env Env, cmd *cobra.Command, args []string) (lab.Config, error) {
	var c lab.Config
	command, err := profileCommand(cmd, args)
	if err != nil {
		return c, err
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
	}
	if f.profiler == string(runfmt.ProfilerPprof) && f.pprof == "" {
		return c, usageErr("--profiler pprof needs --pprof URL")
	}
	if f.profiler != string(lab.ProfilerAuto) && f.profiler != string(runfmt.ProfilerPprof) && f.pid == 0 && len(command) == 0 && f.deploy.cgroup == "" {
		return c, usageErr("--profiler %s samples a process: give --pid PID or -- CMD", f.profiler)
	}
	if f.pid == 0 && len(command) == 0 && f.deploy.cgroup == "" {
		if err := checkListening(string(runfmt.ProfilerPprof), f.pprof); err != nil {
			return c, err
		}
	}
	budget, err := (&runFlags{cpus: f.cpus, memory: f.memory}).budget()
	if err != nil {
		return c, err
	}
	if len(command) == 0 && (budget.CPUs > 0 || budget.MemoryBytes > 0) {
		return c, usageErr("--cpus and --memory apply to a service perflab launches (-- CMD)")
	}
	name := f.name
	if name == "" {
		name = "profile"
		if f.pid != 0 || len(command) > 0 {
			name += "-" + defaultName(command, f.pid)
		}
	}
	st, err := writableStore(f.dir)
	if err != nil {
		return c, err
	}
	c = lab.Config{
		Name: name, Store: st, Command: command, Env: f.env, PID: f.pid,
		Budget: budget, ReadyURL: f.ready, Pprof: f.pprof, Profiler: lab.ProfilerChoice(f.profiler), PerfHz: f.perfHz,
		Trace: f.trace, Version: Version, Hurry: env.Hurry, Force: f.force,
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
		if interrupted(err) {
			return &exitError{code: ExitInterrupted, err: err}
		}
		return failed(err)
	}
	r := res.Run
	werr := f.format.write(env.Stdout, views{
		formatText: func(w io.Writer) error {
			tops, err := cpuTops(r, res.Dir)
			if err != nil {
				return err
			}
			return report.WriteProfileSummary(w, r, res.Dir, tops)
		},
		formatJSON: jsonView(r),
	})
	if werr != nil {
		return failed(werr)
	}
	return runError(res, err)
}

// cpuTops are the top tables the summary prints (profview.CPUTops), as
// report takes them.
func cpuTops(r *runfmt.Run, dir string) (map[string]report.TopTable, error) {
	tables, err := profview.CPUTops(r, dir)
	if err != nil {
		return nil, err
	}
	tops := make(map[string]report.TopTable, len(tables))
	for file, t := range tables {
		tops[file] = t
	}
	return tops, nil
}

// checkListening refuses the URL of flag name when its host refuses a
// connection: an address the user typed that nothing listens on is the
// user's input to fix, said before a run is written. Other dial errors
// (a slow or filtered network) are left to the capture, which reports
// them.
func checkListening(name, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return nil // checked when the flag was parsed
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	c, err := net.DialTimeout("tcp", net.JoinHostPort(u.Hostname(), port), time.Second)
	if errors.Is(err, syscall.ECONNREFUSED) {
		return usageErr("--%s %s: connection refused: nothing listens on %s (is the service running, and on that port?)", name, raw, net.JoinHostPort(u.Hostname(), port))
	}
	if err == nil {
		c.Close()
	}
	return nil
}
