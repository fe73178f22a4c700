package findings

import (
	"fmt"
	"strings"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
	"perflab/internal/stacks"
	"perflab/internal/units"
)

// gcMinShare is the GC share of CPU above which the GC is a finding.
const gcMinShare = runfmt.GCNotablePct / 100

// cpuBound reports that the target ran at its CPU budget.
func cpuBound(in FindingInput, cpu *cpuView) []ranked {
	t := in.Target
	if t == nil || !t.CPUBound {
		return nil
	}
	f := runfmt.Finding{Kind: runfmt.FindingCPUBound, Share: 1, CostUsPerRequest: cpu.UsPerRequest}
	limit := t.CPULimitCores
	f.Title = fmt.Sprintf("CPU-bound: %.2f cores used", t.CPUCoresMean)
	f.Detail = fmt.Sprintf("The target used %.2f cores on average (max %.2f)", t.CPUCoresMean, t.CPUCoresMax)
	if limit > 0 {
		f.Title += fmt.Sprintf(" of a %.2g-core budget", limit)
		f.Detail += fmt.Sprintf(" of its %.2g-core budget and was throttled %.1f%% of periods", limit, t.ThrottledPct)
	}
	if t.CPUMsPerRequest > 0 {
		f.Detail += fmt.Sprintf("; each request costs %s of CPU", units.FormatMs(t.CPUMsPerRequest))
		if limit > 0 {
			f.Detail += fmt.Sprintf(", so the budget caps throughput near %.0f requests/s", limit*1000/t.CPUMsPerRequest)
		}
	}
	f.Detail += ". Throughput grows only by making requests cheaper (see the findings above) or by giving the service more CPU."
	return []ranked{{f, 1}}
}

// gcFinding reports a garbage collector taking a large share of CPU, with
// the user functions that allocate most per request.
func gcFinding(in FindingInput, cpu *cpuView) []ranked {
	share, src := 0.0, ""
	switch {
	case in.GC != nil:
		share, src = in.GC.CPUPct/100, in.GC.CPUPctSource
		if src == "" {
			src = "gctrace"
		}
	case cpu.Costs != nil:
		share, src = cpu.GCShare(), "CPU profile (GC workers and assists)"
	}
	if share <= gcMinShare {
		return nil
	}
	f := runfmt.Finding{Kind: runfmt.FindingGC, Share: share, CostUsPerRequest: cpu.Us(share), Functions: nil}
	f.Title = fmt.Sprintf("garbage collection takes %.0f%% of CPU", 100*share)
	var d strings.Builder
	fmt.Fprintf(&d, "The GC used %.1f%% of the target's CPU (from %s)", 100*share, src)
	if cpu.UsPerRequest > 0 {
		fmt.Fprintf(&d, ", %s per request", units.FormatMicros(cpu.Us(share)))
	}
	if in.GC != nil && in.GC.AllocMBPerS > 0 {
		fmt.Fprintf(&d, "; allocation rate %s/s", units.FormatBytes(in.GC.AllocMBPerS*(1<<20)))
	}
	if in.GC != nil && in.GC.Count > 0 {
		fmt.Fprintf(&d, "; %d collections, heap peak %s", in.GC.Count, units.FormatBytes(in.GC.HeapMaxMB*(1<<20)))
	}
	d.WriteString(".")
	if in.Allocs != nil && in.Requests > 0 {
		var total float64
		var tops []string
		for _, a := range analysis.AllocTopFor(in.Allocs, in.Requests, 3, in.UserCode) {
			if !a.UserCode {
				continue
			}
			total += a.BytesPerRequest
			f.Functions = append(f.Functions, a.Function)
			tops = append(tops, fmt.Sprintf("%s %s/request (%.0f objects)", a.Function, units.FormatBytes(a.BytesPerRequest), a.ObjectsPerRequest))
		}
		f.CostBytesPerRequest = allocBytesPerRequest(in)
		fmt.Fprintf(&d, " Requests allocate %s each", units.FormatBytes(f.CostBytesPerRequest))
		if len(tops) > 0 {
			fmt.Fprintf(&d, "; the top allocating user functions: %s", strings.Join(tops, "; "))
		}
		d.WriteString(".")
	}
	if in.Allocs == nil && cpu.Costs != nil {
		if names := cpu.mallocCallers(3); len(names) > 0 {
			f.Functions = names
			fmt.Fprintf(&d, " No allocation profile; by CPU spent allocating (runtime.mallocgc), the user functions allocating most are %s.", strings.Join(names, ", "))
		}
	}
	gogc := "100"
	if in.GC != nil && in.GC.GOGC != "" {
		gogc = in.GC.GOGC
	}
	fmt.Fprintf(&d, " Allocate less on the request path (reuse buffers, avoid conversions to string and []byte, preallocate slices), or trade memory for CPU: raising GOGC (now %s) makes collections rarer and cuts GC CPU at the cost of a larger heap; GOMEMLIMIT caps the heap so a high GOGC stays safe (try `perflab sweep --env GOGC=100,400,800`).", gogc)
	f.Detail = d.String()
	return []ranked{{f, share}}
}

// allocBytesPerRequest is the total allocated bytes per request.
func allocBytesPerRequest(in FindingInput) float64 {
	s := stacks.FromProfile(in.Allocs)
	vi, err := s.SampleIndex("alloc_space")
	if err != nil || in.Requests <= 0 {
		return 0
	}
	var total int64
	for i := 0; i < s.NumStacks(); i++ {
		total += s.Value(i, vi)
	}
	return float64(total) / float64(in.Requests)
}

// mallocCallers names up to n user functions with the most CPU spent in
// runtime.mallocgc below them.
func (v *cpuView) mallocCallers(n int) []string {
	s := v.Costs.Set()
	isMalloc := make([]bool, len(s.Funcs))
	for i, f := range s.Funcs {
		isMalloc[i] = f.Name == "runtime.mallocgc"
	}
	c := analysis.NewCosts(s, v.Costs.SampleIndex(), v.UserCode, func(st []int32) bool {
		for _, f := range st {
			if isMalloc[f] {
				return true
			}
		}
		return false
	})
	var names []string
	for _, f := range c.Ranked(true, n) {
		names = append(names, s.Funcs[f].Name)
	}
	return names
}
