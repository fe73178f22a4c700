package findings

import (
	"fmt"
	"sort"
	"strings"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
	"perflab/internal/stacks"
	"perflab/internal/units"
)

// Thresholds of the waiting rules.
const (
	offCPUMinRatio     = 5    // mean latency / CPU per request
	contentionMinShare = 0.5  // run-queue wait / time off-CPU
	offCPUMaxCoreShare = 0.8  // not off-CPU when this close to the budget
	lockMinLatency     = 0.05 // lock delay per request / mean latency
	lockMinWindow      = 0.10 // lock delay / window, when latency is unknown
	growthMinFactor    = 2.0
	growthMinAbs       = 100
	offExplainedShare  = 0.6 // wall-time findings explaining this much replace off-cpu
)

// syscallFrames mark CPU spent entering the kernel or polling the network.
var syscallFrames = []string{"syscall.Syscall", "syscall.Syscall6", "syscall.RawSyscall", "syscall.RawSyscall6", "internal/runtime/syscall.Syscall6", "runtime.netpoll", "internal/poll.(*FD).Read", "internal/poll.(*FD).Write"}

// offCPU reports requests that spend most of their time waiting, unless the
// wall-time findings (tw) explain most of it: then they say it better.
func offCPU(in FindingInput, cpu *cpuView, tw *timeWaits) []ranked {
	if in.Load == nil || cpu.UsPerRequest <= 0 || in.Load.Latency.Mean <= 0 {
		return nil
	}
	if t := in.Target; t != nil && (t.CPUBound || t.CPULimitCores > 0 && t.CPUCoresMean >= offCPUMaxCoreShare*t.CPULimitCores) {
		return nil // queueing for CPU, not waiting
	}
	cpuMs, lat := cpu.UsPerRequest/1000, in.Load.Latency.Mean
	if lat < offCPUMinRatio*cpuMs {
		return nil
	}
	off := 1 - cpuMs/lat
	// Waiting for a CPU is not I/O or lock waiting: it is reported as
	// contention, or left out of what this finding blames on I/O.
	rq := runqueueOf(in)
	if f, ok := cpuContention(in, rq, lat, cpuMs); ok {
		return []ranked{{f, f.Share}}
	}
	if lat-rq.ms() < offCPUMinRatio*cpuMs {
		return nil
	}
	if tw.explained >= offExplainedShare*(lat-cpuMs-rq.ms()) {
		return nil // the wall-time findings say it better
	}
	f := runfmt.Finding{Kind: runfmt.FindingOffCPU}
	f.Title = fmt.Sprintf("requests wait: %s mean latency for %s of CPU", units.FormatMs(lat), units.FormatMs(cpuMs))
	var d strings.Builder
	fmt.Fprintf(&d, "A request takes %s on average but uses %s of CPU, so %.0f%% of its time is spent off-CPU", units.FormatMs(lat), units.FormatMs(cpuMs), 100*off)
	if rq.ms() > 0 {
		fmt.Fprintf(&d, "; %s of it is waiting for a CPU (the run queue), the other %s is waiting on I/O, locks, a downstream service or a queue.", rq.text(), units.FormatMs(lat-cpuMs-rq.ms()))
	} else {
		d.WriteString(": waiting on I/O, locks, a downstream service or a queue.")
	}
	if in.Quality.Noisy() {
		fmt.Fprintf(&d, " The machine was noisy (%s): part of this may be CPU contention as well.", strings.Join(in.Quality.Reasons, "; "))
	}
	if len(in.Load.Phases) > 0 {
		names := make([]string, 0, len(in.Load.Phases))
		for n := range in.Load.Phases {
			names = append(names, n)
		}
		sort.Strings(names)
		var ps []string
		for _, n := range names {
			ps = append(ps, fmt.Sprintf("%s %s", n, units.FormatMs(in.Load.Phases[n].Mean)))
		}
		fmt.Fprintf(&d, " Client-side phases (mean): %s.", strings.Join(ps, ", "))
	}
	if cpu.Costs != nil {
		sh := cpu.Share(cpu.CumOf(syscallFrames))
		fmt.Fprintf(&d, " %.0f%% of the CPU it does use is in system calls and network polling.", 100*sh)
	}
	d.WriteString(tw.explain(in, lat-cpuMs))
	f.Detail = d.String()
	return []ranked{{f, off}}
}

// lockFindings reports the user functions that waited most on locks or
// channels, from the mutex and block profiles.
func lockFindings(in FindingInput) []ranked {
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
	users := c.Ranked(true, 3)
	if len(users) == 0 || c.Total() == 0 {
		return ranked{}, false
	}
	toMs := analysis.TimeToMicros(s.SampleTypes[vi].Unit, 0, "") / 1000
	totalMs := float64(c.Total()) * toMs
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
	top := users[0]
	name := s.Funcs[top].Name
	f := runfmt.Finding{Kind: runfmt.FindingLockContention, Functions: []string{name}}
	wait := ""
	if callee, _ := c.TopCallee(top); callee >= 0 {
		wait = s.Funcs[callee].Name
		f.Functions = append(f.Functions, wait)
	}
	per := func(v int64) string {
		if in.Requests > 0 {
			return units.FormatMs(float64(v)*toMs/float64(in.Requests)) + "/request"
		}
		return units.FormatMs(float64(v)*toMs) + " total"
	}
	f.Title = fmt.Sprintf("contention in %s: %s waiting", name, per(c.Charged(top)))
	if wait != "" {
		f.Title += " in " + wait
	}
	var parts []string
	for _, u := range users {
		parts = append(parts, fmt.Sprintf("%s %s (%.0f%%)", s.Funcs[u].Name, per(c.Charged(u)), analysis.Pct(c.Charged(u), c.Total())))
	}
	f.Detail = fmt.Sprintf("The %s profile records %s of waiting; the user functions that waited most: %s. Hold locks for less time, shard them, or avoid shared state on the request path.", what, per(c.Total()), strings.Join(parts, "; "))
	return ranked{f, rank}, true
}

// goroutineGrowth reports a goroutine count that grew during the window and
// where the new goroutines are parked.
func goroutineGrowth(in FindingInput) []ranked {
	if in.GoroutinesStart == nil || in.GoroutinesEnd == nil {
		return nil
	}
	start, end := goroutineCount(in.GoroutinesStart), goroutineCount(in.GoroutinesEnd)
	if end-start < growthMinAbs || float64(end) < growthMinFactor*float64(start) {
		return nil
	}
	f := runfmt.Finding{Kind: runfmt.FindingGoroutineGrowth}
	f.Title = fmt.Sprintf("goroutines grew from %d to %d", start, end)
	before := chargedByName(in.GoroutinesStart, in.UserCode)
	s := stacks.FromProfile(in.GoroutinesEnd)
	if len(s.SampleTypes) == 0 {
		return nil
	}
	c := analysis.NewCosts(s, len(s.SampleTypes)-1, in.UserCode, nil)
	growth := map[int32]int64{}
	for fn := range s.Funcs {
		if d := c.Charged(int32(fn)) - before[s.Funcs[fn].Name]; d > 0 {
			growth[int32(fn)] = d
		}
	}
	var parts []string
	for _, fn := range analysis.ByCost(growth) {
		if len(parts) == 3 {
			break
		}
		name := s.Funcs[fn].Name
		part := fmt.Sprintf("%s +%d", name, growth[fn])
		f.Functions = append(f.Functions, name)
		if callee, _ := c.TopCallee(fn); callee >= 0 {
			part += " (parked in " + s.Funcs[callee].Name + ")"
			f.Functions = append(f.Functions, s.Funcs[callee].Name)
		}
		parts = append(parts, part)
	}
	if len(parts) > 0 {
		f.Title += ": most in " + f.Functions[0]
	}
	f.Detail = fmt.Sprintf("The target had %d goroutines at the start of the window and %d at the end; the new ones: %s. A count that keeps growing under steady load is a leak: goroutines blocked on a channel, lock or connection that never completes.", start, end, strings.Join(parts, "; "))
	rank := 0.5 * float64(end-start) / float64(end)
	return []ranked{{f, rank}}
}

// chargedByName is the attributed goroutine count per function name.
func chargedByName(p *profile.Profile, uc analysis.UserCode) map[string]int64 {
	s := stacks.FromProfile(p)
	out := map[string]int64{}
	if len(s.SampleTypes) == 0 {
		return out
	}
	c := analysis.NewCosts(s, len(s.SampleTypes)-1, uc, nil)
	for fn, fi := range s.Funcs {
		out[fi.Name] = c.Charged(int32(fn))
	}
	return out
}

func goroutineCount(p *profile.Profile) int64 {
	var n int64
	for _, s := range p.Sample {
		if len(s.Value) > 0 {
			n += s.Value[0]
		}
	}
	return n
}
