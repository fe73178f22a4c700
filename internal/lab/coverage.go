package lab

import "perflab/internal/runfmt"

// profilingSummary records how the CPU profile was taken and whether it
// accounts for the CPU measured over the window.
func (s *session) profilingSummary() *runfmt.Profiling {
	pr := s.prof.Summary(s.run.Target)
	pr.Src = s.userCode().Root
	if s.cfg.UserCode != nil {
		pr.UserCode = s.cfg.UserCode.String()
	}
	return pr
}

// wallClockSpy says whether the CPU profile came from py-spy or rbspy,
// whose samples count a thread that is runnable but waiting for a CPU as
// working: on a busy machine such a profile stands for more CPU than the
// service used.
func (s *session) wallClockSpy() bool { return s.prof.CountsRunnable() }

// scaleHot rescales the per-request figures of hot functions by f: a
// profile whose samples stand for more CPU than was measured keeps its
// shares, and its per-request costs add up to the CPU measured.
func scaleHot(hot []runfmt.HotFunc, f float64) {
	for i := range hot {
		h := &hot[i]
		h.CPUUsPerRequest *= f
		h.CumUsPerRequest *= f
		h.AttributedUsReq *= f
	}
}

// serviceRuntime is the runtime of the service's busiest process: "go" for
// a service profiled through its pprof endpoint, "" when unknown.
func (s *session) serviceRuntime() runfmt.Runtime { return s.prof.Runtime() }
