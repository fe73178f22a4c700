package profiling

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/capture"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// recorder is one recorder the tree sampler started.
type recorder struct {
	procs   []service.ProcessInfo // what it records
	pid     int                   // its process, once it runs
	signals bool                  // it says when it samples (Sampling.SignalsReady)
	ready   bool                  // it said so
	done    bool                  // it has ended
}

// start records procs with tool for what is left of the window: one that
// Follows records the first with its descendants, one that records
// Groups all of them, any other profiler the one process it is given.
func (t *treeSampler) start(ctx context.Context, tool *Profiler, procs []service.ProcessInfo, left time.Duration) {
	follows, signals := tool.Sampling.Follows, tool.Sampling.SignalsReady
	root := procs[0].PID
	rec := &recorder{procs: procs, signals: signals}
	t.mu.Lock()
	if follows {
		t.roots[root] = tool
	}
	t.recs = append(t.recs, rec)
	t.mu.Unlock()
	hz := t.hz(tool)
	name := tool.Name // the profiler that samples: another when tool hands the job on
	job := Job{Processes: procs, Window: left, Hz: hz, Stop: t.stopAt.Done(), Note: t.note, Unwound: t.unwound,
		Started: func(pid int) {
			t.mu.Lock()
			rec.pid = pid
			n := name
			t.mu.Unlock()
			t.meter.started(pid, n, runfmt.RoleCPU, hz)
		},
		StartedThread: func(pid, tid int) { t.meter.startedThread(pid, tid, tool.Name, runfmt.RoleCPU, hz) },
		HandedTo: func(p runfmt.Profiler) {
			t.mu.Lock()
			defer t.mu.Unlock()
			name = p
			for _, pr := range procs {
				if pp := t.procs[pr.PID]; pp != nil {
					pp.Profiler = p // the run lists the profiler that sampled it
				}
			}
		},
		Ready: func() {
			t.mu.Lock()
			rec.ready = true
			t.mu.Unlock()
			t.sampledFrom(procs)
		},
	}
	t.wg.Go(func() {
		prof, used, err := tool.Recorder.Record(ctx, job)
		t.mu.Lock()
		pid := rec.pid
		t.mu.Unlock()
		t.meter.exited(pid, used)
		t.mu.Lock()
		defer t.mu.Unlock()
		rec.done = true
		if follows {
			t.done[root] = true
		}
		if err != nil {
			if errors.Is(err, capture.ErrToolMissing) && t.toolErr == nil {
				t.toolErr = err
			}
			if ctx.Err() == nil || prof == nil {
				t.notes = append(t.notes, fmt.Sprintf("%s of pid %s: %v", name, joinPIDs(job.pids()), err))
			}
			return
		}
		if len(prof.Sample) > 0 {
			labelPIDs(prof, root)
			t.profiles = append(t.profiles, prof)
			t.tools = t.tools.With(name)
		} else if t.idleProf == nil {
			t.idleProf = prof
			t.tools = t.tools.With(name)
		}
	})
}

// labelPIDs gives samples without a pid label (py-spy without
// --subprocesses output) the recorded process's pid.
func labelPIDs(p *profile.Profile, pid int) {
	for _, s := range p.Sample {
		if len(s.NumLabel["pid"]) == 0 {
			if s.NumLabel == nil {
				s.NumLabel = map[string][]int64{}
			}
			s.NumLabel["pid"] = []int64{int64(pid)}
		}
	}
}

// account fills each process's samples and CPU from the merged profile and
// names processes in the comm label where the profiler did not.
func (t *treeSampler) account(p *profile.Profile) {
	ci := len(p.SampleType) - 1
	for i, st := range p.SampleType {
		if st.Type == runfmt.CPUSample {
			ci = i
		}
	}
	for _, s := range p.Sample {
		pids := s.NumLabel["pid"]
		if len(pids) == 0 {
			continue
		}
		pp := t.procs[int(pids[0])]
		if pp == nil {
			pp = &runfmt.ProcessProfile{PID: int(pids[0])} // a thread or process seen by the profiler only
			t.procs[pp.PID] = pp
		}
		pp.Samples += s.Value[0]
		pp.CPUSeconds += float64(s.Value[ci]) / 1e9
		if len(s.Label["comm"]) == 0 && pp.Cmdline != "" {
			if s.Label == nil {
				s.Label = map[string][]string{}
			}
			s.Label["comm"] = []string{pp.Cmdline}
		}
	}
}

// source is the profilers that produced samples.
func (t *treeSampler) source() runfmt.ProfilerSet {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tools
}

// processes lists the processes seen, by pid, with their share of the
// profile.
func (t *treeSampler) processes() []runfmt.ProcessProfile {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]runfmt.ProcessProfile, 0, len(t.procs))
	for _, p := range t.procs {
		p.CPUSeconds = math.Round(p.CPUSeconds*1e4) / 1e4
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b runfmt.ProcessProfile) int { return a.PID - b.PID })
	return out
}

// startupCPU is the CPU a recorder that does not say when it samples
// (rbspy) uses before it samples (reading the interpreter's symbols, tens
// of milliseconds).
const startupCPU = 0.02

// waitAttached waits, at most limit, until every recorder started so far
// samples: one that says so (perf acknowledges enabling its events,
// py-spy prints that it samples) has said it, any other runs and has done
// its start-up work (used startupCPU of CPU). The measured window then
// starts with the samplers sampling, and their start-up (py-spy's takes a
// tenth of a second of CPU) is not counted in it: on a loaded machine a
// profiler can take a second of wall time to get there. A recorder that
// is gone is waited for no more.
func (t *treeSampler) waitAttached(ctx context.Context, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if t.attached() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// attached says whether every recorder started so far samples.
func (t *treeSampler) attached() bool {
	t.mu.Lock()
	recs := make([]recorder, len(t.recs))
	for i, r := range t.recs {
		recs[i] = *r
	}
	t.mu.Unlock()
	for _, r := range recs {
		switch {
		case r.done:
		case r.signals && !r.ready:
			return false
		case r.signals: // it samples: one inside the service has no pid of its own
		case r.pid == 0:
			return false
		case !r.signals:
			if cpu, err := service.ProcessCPUSeconds(r.pid); err == nil && cpu < startupCPU {
				return false
			}
		}
	}
	return true
}
