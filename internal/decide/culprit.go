package decide

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"perflab/internal/analysis"
	"perflab/internal/answer"
	"perflab/internal/findings"
	"perflab/internal/ownership"
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// culprit adds to the run what names the culprit exactly: the costliest
// source lines of its findings (where a wait finding's requests waited)
// and hot functions, and the CPU per request
// handler and per load target (Go and Python services). Sources are read where the profile says, then
// relative to the service's working directory (py-spy and rbspy record
// script paths as the interpreter was given them).
func (d *decider) culprit() {
	r, cpu := d.run, d.prof.Profile(runfmt.ProfileCPU)
	src := d.sources()
	findings.AttachWaitLines(d.wallProfile(), r.Findings, src, d.userCode())
	if cpu == nil {
		return
	}
	findings.AttachLines(cpu, r.Findings, r.Hot, src, d.userCode())
	findings.AttachMakers(cpu, d.prof.Profile(runfmt.ProfileAllocs), r.Findings, src, d.userCode())
	databaseLines(r.Hot, string(d.serviceRuntime()))
	// Per request answered, as every figure per request of the run (none
	// when other clients reached the service).
	r.Endpoints = analysis.Endpoints(analysis.EndpointInput{CPU: cpu, Requests: r.PerRequestCount(), Target: r.Target, Load: r.Load, UserCode: d.userCode(), Sources: src,
		UnsampledStartMs: r.Ledger.UnsampledStartMs(), RunnableCoverage: d.runnableCoverage()})
	d.endpointsRunnableNote()
}

// runnableCoverage is how many times the CPU measured the CPU profile
// stands for when its profiler counts a thread waiting for a CPU as
// working; 0 when it samples the CPU itself or the coverage is unknown.
func (d *decider) runnableCoverage() float64 {
	if d.run.Profiling == nil || !d.prof.CountsRunnable() {
		return 0
	}
	return d.run.Profiling.Coverage
}

// endpointsRunnableNote says when the handlers' shares come from a profiler
// that counts a thread waiting for a CPU as working (py-spy, rbspy) on a
// busy machine: a request long enough to be preempted collects the
// samples of its waits, one that finishes in a time slice does not, so
// the long endpoints' shares are overstated against the short ones'.
func (d *decider) endpointsRunnableNote() {
	r := d.run
	e := r.Endpoints
	if e == nil || len(e.Handlers) < 2 || !answer.OverCounted(d.runnableCoverage(), 1) {
		return
	}
	note := fmt.Sprintf("the profiler counts a thread waiting for a CPU as working, and the service's threads waited (the profile stands for %s× the CPU measured): a long request, preempted more, may have its endpoint's share overstated against a short one's", units.Sig(r.Profiling.Coverage))
	if e.Note != "" {
		note = e.Note + "; " + note
	}
	e.Note = note
}

func (d *decider) sources() *analysis.Sources { return Sources(d.cfg.Dir, d.cfg.PID) }

// Sources looks for source files in the service's working directory:
// dir (the launch's), or for a process perflab attached to (pid), its
// /proc cwd.
func Sources(dir string, pid int) *analysis.Sources {
	if dir == "" && pid > 0 {
		dir, _ = os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "cwd"))
	}
	src := &analysis.Sources{}
	if dir != "" {
		src.SearchPath = []string{dir}
	}
	return src
}

// databaseLines counts as database work the lines of a user function that
// run a query through a call no frame shows (py-spy shows the user's
// line calling sqlite3's Cursor.execute, written in C, and no frame for
// it), when the profile showed no database client under the function.
func databaseLines(hot []runfmt.HotFunc, lang string) {
	for i := range hot {
		h := &hot[i]
		if !h.UserCode || h.DatabaseUsPerRequest > 0 {
			continue
		}
		for _, l := range h.Lines {
			if ownership.LineRole(lang, l.Text) == ownership.Database {
				h.DatabaseUsPerRequest += l.CostUsPerRequest
			}
		}
	}
}
