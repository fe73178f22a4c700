package prose

import "perflab/internal/runfmt"

// goroutineWords word a goroutine count that grew during the window, and
// where the new goroutines are parked.
var goroutineWords = oneKind(runfmt.FindingGoroutineGrowth, goroutineTitle, goroutineDetail, advices{
	runfmt.AdviceFixLeak: fixed("A count that keeps growing under steady load is a leak: goroutines blocked on a channel, lock or connection that never completes."),
})

// "goroutines grew from 12 to 512: most in main.worker"
func goroutineTitle(v view, p *Prose) {
	p.say("goroutines grew from %v to %v", v.fig(runfmt.FigGoroutinesStart), v.fig(runfmt.FigGoroutinesEnd))
	if c := v.culprit(); c.Function != "" {
		p.say(": most in %v", code(c.Function))
	}
}

func goroutineDetail(v view, p *Prose) {
	p.say("The target had %v goroutines at the start of the window and %v at the end; the new ones: ", v.fig(runfmt.FigGoroutinesStart), v.fig(runfmt.FigGoroutinesEnd))
	fs := v.f.Evidence.Functions
	p.join("; ", len(fs), func(i int) {
		p.say("%v +%v", code(fs[i].Function), efig(fs[i], runfmt.FigGoroutinesAdded))
		if fs[i].Callee != "" {
			p.say(" (parked in %v)", code(fs[i].Callee))
		}
	})
	p.words(".")
}
