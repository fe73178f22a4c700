package report

import (
	"fmt"
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// The answer (runfmt.Answer) is decided once, as data; these word it.

// limitText words a limit, for "Limited by: ". The figures the page
// prints elsewhere (the cores used, the rows' milliseconds) are left to
// those lines: a limit adds what it allows and how much it holds.
func limitText(l runfmt.Limit, r *runfmt.Run) string {
	fig := func(f runfmt.Figure) float64 { return l.Figures[f] }
	share := units.FormatShare(l.Share) + " of the mean latency"
	switch l.Kind {
	case runfmt.LimitCPUBudget:
		return "its CPU budget of " + units.FormatCores(fig(runfmt.FigCPULimit)) + capacityText(l)
	case runfmt.LimitCPUThread:
		return fmt.Sprintf("one thread per worker: its %s (an event loop, an interpreter lock) are busy",
			count(int(fig(runfmt.FigCount)), "single-threaded worker", "single-threaded workers")) + capacityText(l)
	case runfmt.LimitCPUHost:
		if l.Part == runfmt.PartRunnable {
			return "the machine's CPUs: requests wait for a CPU " + share
		}
		return "the machine's " + count(int(fig(runfmt.FigHostCores)), "CPU", "CPUs") + capacityText(l)
	case runfmt.LimitDownstream:
		return "a downstream: requests wait for another service's answers " + share
	case runfmt.LimitLock:
		return "a lock: requests wait for a lock or another goroutine " + share
	case runfmt.LimitPool:
		return "a pool: requests wait for a pool's connection or a semaphore " + share
	case runfmt.LimitQueue:
		return "a queue: requests wait to be read or accepted (busy workers, a backlog) " + share
	case runfmt.LimitNetwork:
		return "the network: requests wait on their own connection (Nagle's algorithm and delayed ACKs, a slow client) " + share
	case runfmt.LimitClient:
		return "the load client: its own delay is " + share + ", not the service's"
	case runfmt.LimitNone:
		if l.Part == "" {
			return "nothing: the service has CPU to spare"
		}
		return "nothing: the service has CPU to spare; its latency is its own, most of it " + string(l.Part) + " (" + share + ")"
	case runfmt.LimitStuck:
		return "the service stopped answering (see the stuck finding)"
	}
	return "not decided (see why above)"
}

// coresBudget is "a 1-core budget" or "a 0.5-core budget".
func coresBudget(c float64) string { return "a " + units.Sig(c) + "-core budget" }

// capacityText is the throughput a CPU limit allows at the measured CPU
// per request.
func capacityText(l runfmt.Limit) string {
	if c := l.Figures[runfmt.FigMaxRPS]; c > 0 {
		return fmt.Sprintf(": at most %s requests/s at this CPU per request", units.Sig(c))
	}
	return ""
}

// doubtText words what kept the answer from being certain.
func doubtText(d runfmt.Doubt) string {
	fig := func(f runfmt.Figure) float64 { return d.Figures[f] }
	switch d.Kind {
	case runfmt.DoubtNoisy:
		return "the machine was not the service's alone (see the measurement), so its waits for a CPU may be other processes'"
	case runfmt.DoubtFewSamples:
		return fmt.Sprintf("the first findings are closer than %.0f samples tell apart (raise --perf-hz or --duration)", fig(runfmt.FigCount))
	case runfmt.DoubtNoProfile:
		return "no CPU profile says where the CPU goes"
	case runfmt.DoubtOverCounted:
		return fmt.Sprintf("the profile stands for %s× the CPU measured (threads waiting for a CPU sampled as running)", units.Sig(fig(runfmt.FigOverCounted)))
	case runfmt.DoubtNoTimeSplit:
		return "nothing timed what requests wait for (no kernel timing, trace or wall-clock sampler)"
	case runfmt.DoubtNoCPU:
		return "the service's CPU was not measured"
	case runfmt.DoubtUnexplained:
		return units.FormatShare(fig(runfmt.FigShare)) + " of the latency is in no measured part"
	case runfmt.DoubtClient:
		return "the load generator waited for a CPU: its delay may hold up to " + units.FormatShare(fig(runfmt.FigShare)) +
			" of the latency (a bound, so the service's own parts may be larger than they read)"
	}
	return string(d.Kind)
}

// doubtsText words an answer's doubts in one line; "" when certain. A
// noisy machine is left to the measurement's line, which names it with
// its figures.
func doubtsText(a *runfmt.Answer, q *runfmt.Quality) string {
	if a == nil {
		return ""
	}
	var parts []string
	for _, d := range a.Doubts {
		if d.Kind == runfmt.DoubtNoisy && q.Noisy() {
			continue
		}
		parts = append(parts, doubtText(d))
	}
	return strings.Join(parts, "; ")
}

// answerLimits words the answer's limits: the first, then "; and " the
// second with its share.
func answerLimits(a *runfmt.Answer, r *runfmt.Run) string {
	parts := make([]string, len(a.Limits))
	for i, l := range a.Limits {
		parts[i] = limitText(l, r)
	}
	return strings.Join(parts, "; and ")
}

// payoffText words what fixing a finding saves, or what it is a
// consequence of; "" without either.
func payoffText(f *runfmt.Finding, a *runfmt.Answer) string {
	if f.ConsequenceOf != "" {
		return "a consequence of the saturated CPU: it shrinks as the findings above are fixed"
	}
	var parts []string
	if us := f.Payoff[runfmt.FigCPUPerRequest]; us > 0 {
		s := units.FormatMicros(us) + " of CPU per request"
		if c, now := f.Payoff[runfmt.FigMaxRPS], a.First().Figures[runfmt.FigMaxRPS]; c > 0 && now > 0 {
			s += fmt.Sprintf(" (capacity %s → %s requests/s)", units.Sig(now), units.Sig(c))
		}
		parts = append(parts, s)
	}
	if us := f.Payoff[runfmt.FigLatency]; us > 0 {
		parts = append(parts, units.FormatMicros(us)+" of mean latency")
	}
	if len(parts) == 0 {
		return ""
	}
	return "fixing it saves " + strings.Join(parts, " and ")
}

// count is "1 core" or "2 cores".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// findingsOrder says how the findings are ranked: by what fixing each
// recovers under the answer's limit, not certainly when it has doubts;
// by their cost for a run stored without an answer.
func findingsOrder(a *runfmt.Answer) string {
	switch {
	case a == nil:
		return "most costly first"
	case !a.Certain():
		return "ranked by what fixing each would recover; not certain, see above"
	case a.First().Kind.CPU():
		return "ranked by the CPU per request fixing each would save"
	}
	return "ranked by the latency fixing each would save"
}

// upperFirst capitalises s's first letter.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// throttlingFound says r has a finding about its budget's throttling: a
// page highlights the throttling it shows when the rules found it
// notable, as they decided once.
func throttlingFound(r *runfmt.Run) bool {
	for _, f := range r.Findings {
		if f.Kind == runfmt.FindingThrottled || f.Kind == runfmt.FindingGOMAXPROCS {
			return true
		}
	}
	return false
}
