package prose

import (
	"math"
	"strconv"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// oomWords word the finding of a service (or a batch program) the
// kernel's OOM killer killed at its memory budget (package findings'
// OutOfMemory makes it, from the run's target summary). It names the
// budget as the run's status does ("at the 32 MiB memory budget").
var oomWords = words{
	kinds: map[runfmt.FindingKind]wording{runfmt.FindingOutOfMemory: {
		title:  oomTitle,
		detail: oomDetail,
		advice: advices{runfmt.AdviceMoreMemory: fixed(
			"Give it a budget that holds its peak (a larger --memory), or make it keep less: bound its caches and queues, " +
				"stream large bodies instead of holding them, and for a garbage-collected runtime set a heap limit under the budget (GOMEMLIMIT, -Xmx, --max-old-space-size).")},
	}},
}

// "killed by the kernel's OOM killer at the 32 MiB memory budget (--memory)"
func oomTitle(v view, p *Prose) {
	p.say("killed by the kernel's OOM killer at the %v memory budget (%v)", budgetFig(v.val(runfmt.FigMemoryLimit)), code("--memory"))
}

func oomDetail(v view, p *Prose) {
	p.say("Its cgroup's memory reached the budget and the kernel killed it, so the run ended early")
	if v.has(runfmt.FigRSSPeak) {
		p.say(" (its resident memory was last sampled at %v)", v.fig(runfmt.FigRSSPeak))
	}
	p.words(".")
}

// budgetFig is a memory budget as --memory gives it: "32 MiB", "2 GiB"
// when whole, else as every size reads.
func budgetFig(b float64) Span {
	for _, u := range []struct {
		size float64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}} {
		if n := b / u.size; n >= 1 && n == math.Trunc(n) {
			return Span{SpanFigure, strconv.FormatFloat(n, 'f', -1, 64) + " " + u.name}
		}
	}
	return Span{SpanFigure, units.FormatBytes(b)}
}
