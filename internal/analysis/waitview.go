package analysis

import (
	"perflab/internal/stacks"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"

	"perflab/internal/ownership"
	"perflab/internal/runfmt"
)

// WaitView is a wall-time profile (runfmt.WallSample and one sample type
// per kind, each sample labelled with its wait) grouped by wait class, each
// class with user-code attribution of its wall time.
type WaitView struct {
	Requests int64
	Classes  map[runfmt.Wait]*WaitClass
	// TotalNs is the wall time of every class.
	TotalNs int64
}

// WaitClass is the wall time of one wait: blocked there, and runnable
// after (the time to get back on a CPU once the wait is over belongs to
// it).
type WaitClass struct {
	Wait runfmt.Wait
	// Costs are its wall time by function, in ns.
	Costs      *Costs
	BlockedNs  int64
	RunnableNs int64
}

// Ms is ns of wall time per request, in ms.
func (w *WaitView) Ms(ns int64) float64 {
	if w.Requests <= 0 {
		return 0
	}
	return float64(ns) / 1e6 / float64(w.Requests)
}

// NewWaitView groups wall's samples by their wait label. A runnable sample
// at a stack where a goroutine blocked joins that block's class; uc decides
// which functions are the user's. Nil when wall has no wall sample type.
func NewWaitView(wall *profile.Profile, requests int64, uc UserCode) *WaitView {
	if wall == nil {
		return nil
	}
	vi := sampleTypeIndex(wall, runfmt.WallSample)
	if vi < 0 {
		return nil
	}
	blockAt := map[string]runfmt.Wait{}
	for _, s := range wall.Sample {
		if w := waitOf(s); w.Parks() {
			blockAt[stackKey(s)] = w
		}
	}
	groups := map[runfmt.Wait][]*profile.Sample{}
	runnable := map[runfmt.Wait]int64{}
	for _, s := range wall.Sample {
		w := waitOf(s)
		if w == runfmt.WaitRunnable {
			if b, ok := blockAt[stackKey(s)]; ok {
				w = b
				runnable[w] += s.Value[vi]
			}
		}
		groups[w] = append(groups[w], s)
	}
	v := &WaitView{Requests: requests, Classes: map[runfmt.Wait]*WaitClass{}}
	for name, samples := range groups {
		set := stacks.FromProfile(withSamples(wall, samples))
		c := NewCosts(set, vi, uc, nil)
		v.Classes[name] = &WaitClass{Wait: name, Costs: c, BlockedNs: c.total - runnable[name], RunnableNs: runnable[name]}
		v.TotalNs += c.total
	}
	return v
}

// withSamples is p with only samples (sharing their locations).
func withSamples(p *profile.Profile, samples []*profile.Sample) *profile.Profile {
	return &profile.Profile{SampleType: p.SampleType, DefaultSampleType: p.DefaultSampleType,
		PeriodType: p.PeriodType, Period: p.Period, DurationNanos: p.DurationNanos, Sample: samples}
}

// waitOf is the wait a sample's label names (running without one). The
// runnable time after a wait that parks (runfmt.Wait.Parks), at the same
// stack, is part of the wait.
func waitOf(s *profile.Sample) runfmt.Wait {
	if ls := s.Label[runfmt.WaitLabel]; len(ls) > 0 {
		return runfmt.Wait(ls[0])
	}
	return runfmt.WaitCPU
}

func stackKey(s *profile.Sample) string {
	var b strings.Builder
	for _, l := range s.Location {
		b.WriteString(strconv.FormatUint(l.ID, 36))
		b.WriteByte(',')
	}
	return b.String()
}

// NewWallCosts charges the wall time of every stack of a wall-time
// profile to its owner, as NewCosts does CPU: where the requests' threads
// spent their time, waits included; nil without that profile.
func NewWallCosts(wall *profile.Profile, uc UserCode) *Costs {
	if wall == nil {
		return nil
	}
	vi := sampleTypeIndex(wall, runfmt.WallSample)
	if vi < 0 {
		return nil
	}
	return NewCosts(stacks.FromProfile(wall), vi, uc, nil)
}

func sampleTypeIndex(p *profile.Profile, typ string) int {
	for i, st := range p.SampleType {
		if st.Type == typ {
			return i
		}
	}
	return -1
}

// Sum is the wall time of the classes named, in ns.
func (w *WaitView) Sum(names ...runfmt.Wait) int64 {
	var ns int64
	for _, n := range names {
		if c := w.Classes[n]; c != nil {
			ns += c.Costs.total
		}
	}
	return ns
}

// WaitSite is a user function that waited, with the call it waited in.
type WaitSite struct {
	Func, File string
	// Callee is the call that holds most of its wait ("" when none does).
	Callee string
	Ns     int64
}

// Sites lists up to n user functions by their time in the class.
func (c *WaitClass) Sites(n int) []WaitSite {
	var out []WaitSite
	cc := c.Costs
	for _, f := range cc.Ranked(true, n) {
		fi := cc.set.Funcs[f]
		s := WaitSite{Func: fi.Name, File: fi.File, Ns: cc.charg[f]}
		if callee, v := cc.TopCallee(f); callee >= 0 && 2*v >= s.Ns {
			s.Callee = cc.set.Funcs[callee].Name // the call that holds most of it
		}
		out = append(out, s)
	}
	return out
}

// TimeKinds splits a wall-time profile into the time-per-request table's
// kinds (runfmt.TimeKinds), each with its waits and its top user function
// (user code decided by uc), per request. Kinds the profile lacks are
// reported as zero.
func TimeKinds(wall *profile.Profile, requests int64, uc UserCode) []runfmt.TimeRow {
	if wall == nil || requests <= 0 {
		return nil
	}
	set := stacks.FromProfile(wall)
	per := func(ns int64) float64 { return float64(ns) / 1e6 / float64(requests) }
	kinds := runfmt.TimeKinds.List()
	out := make([]runfmt.TimeRow, 0, len(kinds))
	for _, kind := range kinds {
		k := runfmt.TimeRow{Kind: kind}
		vi := sampleTypeIndex(wall, string(kind))
		if vi < 0 {
			out = append(out, k)
			continue
		}
		waits := map[runfmt.Wait]int64{}
		for _, s := range wall.Sample {
			if v := s.Value[vi]; v != 0 {
				waits[waitOf(s)] += v
			}
		}
		c := NewCosts(set, vi, uc, nil)
		k.MsPerRequest = per(c.total)
		if len(waits) > 1 || len(waits) == 1 && waits[runfmt.Wait(kind)] == 0 && waits[runfmt.WaitCPU] == 0 {
			// more than the kind itself (its wait of the same name, or
			// running's cpu): name the waits
			k.Waits = map[runfmt.Wait]float64{}
			for w, ns := range waits {
				k.Waits[w] = per(ns)
			}
		}
		if top := c.Ranked(true, 1); len(top) > 0 && c.charg[top[0]] > 0 {
			f := top[0]
			k.Top = &runfmt.TimeSite{Function: set.Funcs[f].Name, File: set.Funcs[f].File, MsPerRequest: per(c.charg[f])}
			if callee, v := c.TopCallee(f); callee >= 0 && 2*v >= c.charg[f] {
				k.Top.Callee = set.Funcs[callee].Name
				// On a CPU, a dependency's function holding the cost,
				// past the entry frames that pass the call on (a
				// descriptor's __get__ for request.form); a standard
				// library's entry is the call the user wrote, and stays.
				if h := c.LibraryHolder(f); kind == runfmt.TimeRunning && h.Entry == callee && h.Func >= 0 &&
					c.cls[h.Func].Kind == ownership.Dependency && 2*h.Cost >= c.charg[f] {
					k.Top.Callee = set.Funcs[h.Func].Name
				}
			}
		}
		out = append(out, k)
	}
	return out
}
