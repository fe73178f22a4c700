package answer

import (
	"sort"
	"strings"

	"perflab/internal/runfmt"
)

// The groups findings are ranked in, first to last.
const (
	groupFailing     = iota // what stops the service: where it is stuck, what it runs out of
	groupCause              // recovers what limits the service
	groupOther              // recovers the other resource (latency on a CPU limit)
	groupState              // no payoff: a state, growth, the machine
	groupConsequence        // the limit's consequences
)

// rankFindings orders r's findings by what fixing each would recover
// under limit: what stops the service first (where it is stuck, the
// memory it ran out of, a heap or goroutines that keep growing), then
// the causes by their payoff
// in the limited resource (CPU per request on a CPU limit, latency
// otherwise), the rest by their other payoff, the findings without one,
// and the consequences of a CPU limit last. The sort is stable: ties keep
// the findings package's order.
func rankFindings(r *runfmt.Run, limit runfmt.Limit) {
	type keyed struct {
		group int
		key   float64
	}
	keys := make([]keyed, len(r.Findings))
	for i := range r.Findings {
		g, k := rankOf(&r.Findings[i], limit, r.Quality.Noisy())
		keys[i] = keyed{g, k}
	}
	idx := make([]int, len(r.Findings))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ka, kb := keys[idx[a]], keys[idx[b]]
		if ka.group != kb.group {
			return ka.group < kb.group
		}
		return ka.key > kb.key
	})
	out := make([]runfmt.Finding, len(idx))
	group := make([]int, len(idx))
	for i, j := range idx {
		out[i], group[i] = r.Findings[j], keys[j].group
	}
	builtFirst(out, group)
	r.Findings = out
}

// builtFirst moves each constructor finding ahead of the repeated-work
// findings of its group that run a method of a package whose constructor
// it names (gzip.NewWriter built per request, gzip.(*Writer).Close
// repeated): an object built per request does its first work, its fresh
// memory first touched and its lazy set-up, in its first methods, so part
// of their cost is the building's and reusing the object comes first.
// group is each finding's group.
func builtFirst(fs []runfmt.Finding, group []int) {
	for i := 0; i < len(fs); i++ {
		if fs[i].Kind != runfmt.FindingRepeatedWork {
			continue
		}
		for j := i + 1; j < len(fs) && group[j] == group[i]; j++ {
			if fs[j].Kind != runfmt.FindingConstructor || !buildsFor(&fs[j], &fs[i]) {
				continue
			}
			c := fs[j]
			copy(fs[i+1:j+1], fs[i:j])
			fs[i] = c
			break
		}
	}
}

// buildsFor says the constructor finding c names a constructor (a
// function New…) of a package one of w's methods belongs to.
func buildsFor(c, w *runfmt.Finding) bool {
	built := map[string]bool{}
	for _, name := range c.Names() {
		if pkg, fn := goPackage(name); strings.HasPrefix(fn, "New") {
			built[pkg] = true
		}
	}
	for _, name := range w.Names() {
		if pkg, fn := goPackage(name); strings.HasPrefix(fn, "(") && built[pkg] {
			return true
		}
	}
	return false
}

// goPackage splits a Go function's name into its package's path and the
// rest ("compress/gzip.(*Writer).Close": "compress/gzip", "(*Writer).Close").
func goPackage(name string) (pkg, fn string) {
	slash := strings.LastIndexByte(name, '/') + 1
	dot := strings.IndexByte(name[slash:], '.')
	if dot < 0 {
		return "", name
	}
	return name[:slash+dot], name[slash+dot+1:]
}

// rankOf is a finding's group and its key within it.
func rankOf(fd *runfmt.Finding, limit runfmt.Limit, noisy bool) (int, float64) {
	cpu, lat := fd.Payoff[runfmt.FigCPUPerRequest], fd.Payoff[runfmt.FigLatency]
	switch {
	case failing[fd.Kind]:
		return groupFailing, 0
	case fd.ConsequenceOf != "":
		return groupConsequence, fd.Figures[runfmt.FigWaitPerRequest]
	case fd.Kind == runfmt.FindingCPUContention && noisy:
		return groupState, 0 // the machine's, said by the measurement's line
	case limit.Kind.CPU() && cpu > 0:
		return groupCause, cpu
	case limit.Kind.CPU() && lat > 0:
		return groupOther, lat
	case !limit.Kind.CPU() && lat > 0:
		return groupCause, lat
	case cpu > 0:
		return groupOther, cpu
	}
	return groupState, fd.Figures[runfmt.FigShare]
}

// failing are the findings of what stops a service, whatever limits it
// while it runs: it stopped answering, it ran out of memory, or its heap
// or goroutines grow until it will.
var failing = map[runfmt.FindingKind]bool{
	runfmt.FindingStuck: true, runfmt.FindingOutOfMemory: true,
	runfmt.FindingMemoryGrowth: true, runfmt.FindingGoroutineGrowth: true,
}
