package lab

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
func (s *session) culprit() {
	r, cpu := s.run, s.prof.Profile(runfmt.ProfileCPU)
	src := s.sources()
	findings.AttachWaitLines(s.wallProfile(), r.Findings, src, s.userCode())
	if cpu == nil {
		return
	}
	findings.AttachLines(cpu, r.Findings, r.Hot, src, s.userCode())
	findings.AttachMakers(cpu, s.prof.Profile(runfmt.ProfileAllocs), r.Findings, src, s.userCode())
	databaseLines(r.Hot, string(s.serviceRuntime()))
	// Per request answered, as every figure per request of the run (none
	// when other clients reached the service).
	r.Endpoints = analysis.Endpoints(analysis.EndpointInput{CPU: cpu, Requests: r.PerRequestCount(), Target: r.Target, Load: r.Load, UserCode: s.userCode(), Sources: src,
		UnsampledStartMs: r.Ledger.UnsampledStartMs(), RunnableCoverage: s.runnableCoverage()})
	s.endpointsRunnableNote()
}

// runnableCoverage is how many times the CPU measured the CPU profile
// stands for when its profiler counts a thread waiting for a CPU as
// working; 0 when it samples the CPU itself or the coverage is unknown.
func (s *session) runnableCoverage() float64 {
	if s.run.Profiling == nil || !s.prof.CountsRunnable() {
		return 0
	}
	return s.run.Profiling.Coverage
}

// endpointsRunnableNote says when the handlers' shares come from a profiler
// that counts a thread waiting for a CPU as working (py-spy, rbspy) on a
// busy machine: a request long enough to be preempted collects the
// samples of its waits, one that finishes in a time slice does not, so
// the long endpoints' shares are overstated against the short ones'.
func (s *session) endpointsRunnableNote() {
	r := s.run
	e := r.Endpoints
	if e == nil || len(e.Handlers) < 2 || !answer.OverCounted(s.runnableCoverage(), 1) {
		return
	}
	note := fmt.Sprintf("the profiler counts a thread waiting for a CPU as working, and the service's threads waited (the profile stands for %s× the CPU measured): a long request, preempted more, may have its endpoint's share overstated against a short one's", units.Sig(r.Profiling.Coverage))
	if e.Note != "" {
		note = e.Note + "; " + note
	}
	e.Note = note
}

// sources looks for source files in the service's working directory:
// cfg.Dir, or for a process perflab attached to, its /proc cwd.
func (s *session) sources() *analysis.Sources {
	dir := s.cfg.Dir
	if dir == "" && s.cfg.PID > 0 {
		dir, _ = os.Readlink(filepath.Join("/proc", strconv.Itoa(s.cfg.PID), "cwd"))
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
