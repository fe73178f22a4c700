package findings

import (
	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
	"perflab/internal/stacks"
)

// Thresholds of the lock profiles' rule.
const (
	lockMinLatency = 0.05 // lock delay per request / mean latency
	lockMinWindow  = 0.10 // lock delay / window, when latency is unknown
	lockUsersNamed = 3
)

// lockFindings report the user functions that waited most on locks or
// channels, from the mutex and block profiles, when there is no wall-time
// profile (whose lock waits say it better). Its findings are lock
// contention (their words: package prose's lockprofile.go).
func lockFindings(c *context) []ranked {
	in := c.in
	if c.tw.v != nil {
		return nil
	}
	var out []ranked
	for _, src := range []struct {
		p    *profile.Profile
		what runfmt.ProfileType
	}{{in.Mutex, runfmt.ProfileMutex}, {in.Block, runfmt.ProfileBlock}} {
		if src.p == nil {
			continue
		}
		if r, ok := lockFinding(in, src.p, src.what); ok {
			out = append(out, r)
		}
	}
	return out
}

func lockFinding(in FindingInput, p *profile.Profile, what runfmt.ProfileType) (ranked, bool) {
	s := stacks.FromProfile(p)
	vi, err := s.SampleIndex("delay")
	if err != nil {
		if vi, err = s.SampleIndex(""); err != nil {
			return ranked{}, false
		}
	}
	c := analysis.NewCosts(s, vi, in.UserCode, nil)
	users := c.Ranked(true, lockUsersNamed)
	if len(users) == 0 || c.Total() == 0 {
		return ranked{}, false
	}
	toUs := analysis.TimeToMicros(s.SampleTypes[vi].Unit, 0, "")
	totalMs := float64(c.Total()) * toUs / 1000
	rank := 0.0
	switch {
	case in.Load != nil && in.Load.Latency.Mean > 0 && in.Requests > 0:
		rank = totalMs / float64(in.Requests) / in.Load.Latency.Mean
		if rank < lockMinLatency {
			return ranked{}, false
		}
	case in.WindowSeconds > 0:
		rank = totalMs / 1000 / in.WindowSeconds
		if rank < lockMinWindow {
			return ranked{}, false
		}
	default:
		return ranked{}, false
	}
	// waited is a wait per request when the requests are known.
	waited := func(v int64) runfmt.Figures {
		if in.Requests > 0 {
			return runfmt.Figures{runfmt.FigWaitPerRequest: float64(v) * toUs / float64(in.Requests)}
		}
		return runfmt.Figures{runfmt.FigWaitTotal: float64(v) * toUs}
	}
	f := runfmt.Finding{Kind: runfmt.FindingLockContention, Advice: runfmt.AdviceShardLocks, Figures: waited(c.Total())}
	f.Settings = f.Settings.With(runfmt.SettingProfile, string(what))
	for i, u := range users {
		e := runfmt.FuncEvidence{Role: runfmt.RoleSite, Function: s.Funcs[u].Name, Figures: waited(c.Charged(u))}
		e.Figures[runfmt.FigShare] = analysis.Pct(c.Charged(u), c.Total()) / 100
		if i == 0 {
			e.Role = runfmt.RoleCulprit
			if callee, _ := c.TopCallee(u); callee >= 0 {
				e.Callee = s.Funcs[callee].Name
			}
		}
		f.Evidence.Functions = append(f.Evidence.Functions, e)
	}
	return ranked{f: f, rank: rank}, true
}
