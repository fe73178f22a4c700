package findings

import (
	"fmt"
	"sort"
	"strings"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// explain says what the off-CPU time (offMs per request) turned out to be:
// the time split and the wall-time findings when there is a wall-time
// profile, else what was checked and what could not be.
func (tw *timeWaits) explain(in FindingInput, offMs float64) string {
	var d strings.Builder
	if t := in.Time; t != nil && tw.v != nil {
		var parts []string
		for _, k := range t.Kinds {
			if k.MsPerRequest >= 0.005 {
				parts = append(parts, fmt.Sprintf("%s %s", k.Kind, units.FormatMs(k.MsPerRequest)))
			}
		}
		fmt.Fprintf(&d, " The %s (%.1f s, %d requests) splits a request's time: %s.", sourceName(t.Source), t.Seconds, t.Requests, strings.Join(parts, ", "))
		explained := tw.explained
		if st, ok := newSchedTime(in, tw); ok && st.total() >= waitMinShare*offMs {
			fmt.Fprintf(&d, " %s of it is waiting for a CPU (runnable, or held off a CPU by the kernel", units.FormatMs(st.total()))
			if in.Target != nil && in.Target.RunqueueWaitSeconds > 0 {
				fmt.Fprintf(&d, "; the service's threads waited %.2f s in the kernel's run queue over the window", in.Target.RunqueueWaitSeconds)
			}
			d.WriteString("), not I/O or locks.")
			explained += st.total()
		}
		switch {
		case tw.explained > 0:
			fmt.Fprintf(&d, " The findings above name %s of it per request; %s stays unexplained.",
				units.FormatMs(tw.explained), units.FormatMs(max(0, offMs-explained)))
		case explained == 0:
			d.WriteString(" No single wait takes 10% of it.")
		}
		if t.TotalMs < 0.5*(offMs) {
			d.WriteString(" The service's own goroutines account for less than half the latency: the rest is outside it (the network, the load generator, the kernel's queues).")
		}
		return d.String()
	}
	if in.Wall != nil && in.Time == nil && in.Requests > 0 {
		if s := offCPUSites(in.Wall, in.Requests, in.UserCode); s != "" {
			fmt.Fprintf(&d, " The kernel's scheduler events show where the service's threads waited off a CPU, per request: %s (threads waiting for work, in epoll_wait or accept, count too: not all of it is request time).", s)
			return d.String()
		}
	}
	d.WriteString(" What was checked:")
	checks := append([]string(nil), in.WaitChecks...)
	goService := in.Runtime == "" || in.Runtime == runfmt.RuntimeGo
	if goService && in.Mutex == nil && in.Block == nil {
		checks = append(checks, "no mutex and block profiles (the service does not enable them: runtime.SetMutexProfileFraction, runtime.SetBlockProfileRate)")
	}
	if len(checks) == 0 {
		checks = append(checks, "no wall-time profile of the service")
	}
	d.WriteString(" " + strings.Join(checks, "; ") + ".")
	if !goService {
		d.WriteString(waitAdvice(in.Runtime)) // what to look at next, in its terms
	}
	return d.String()
}

// sourceName names a wall-time source in a sentence.
func sourceName(src runfmt.TimeSource) string {
	switch src {
	case runfmt.TimeSourceGoTrace:
		return "Go execution trace"
	case runfmt.TimeSourcePySpy, runfmt.TimeSourceRbSpy:
		return string(src) + "'s wall-clock samples"
	case runfmt.TimeSourcePerfSched:
		return "kernel's scheduler events"
	}
	return string(src)
}

// offCPUSites names the user functions with the most time off a CPU in a
// wall-time profile, with their waits.
func offCPUSites(wall *profile.Profile, requests int64, uc analysis.UserCode) string {
	v := analysis.NewWaitView(wall, requests, uc)
	if v == nil {
		return ""
	}
	type best struct {
		s    analysis.WaitSite
		wait runfmt.Wait
	}
	var all []best
	for name, c := range v.Classes {
		if name == runfmt.WaitCPU {
			continue
		}
		for _, s := range c.Sites(2) {
			all = append(all, best{s, name})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].s.Ns != all[j].s.Ns {
			return all[i].s.Ns > all[j].s.Ns
		}
		return all[i].s.Func < all[j].s.Func
	})
	var parts []string
	for i, b := range all {
		if i == 3 {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s (%s)", analysis.FuncLabel(b.s.Func, b.s.File), units.FormatMs(v.Ms(b.s.Ns)), b.wait))
	}
	return strings.Join(parts, "; ")
}
