package prose

import "perflab/internal/runfmt"

// lockWording reads a lock finding of the mutex or block profile as
// such, and one of wall time as w does.
func lockWording(w wording) wording {
	title, detail := w.title, w.detail
	w.title = func(v view, p *Prose) {
		if v.set(runfmt.SettingProfile) == "" {
			title(v, p)
			return
		}
		c := v.culprit()
		p.say("contention in %v: ", code(c.Function))
		waited(p, c.Figures)
		p.words(" waiting")
		if c.Callee != "" {
			p.say(" in %v", code(c.Callee))
		}
	}
	w.detail = func(v view, p *Prose) {
		if v.set(runfmt.SettingProfile) == "" {
			detail(v, p)
			return
		}
		p.say("The %v profile records ", word(v.set(runfmt.SettingProfile)))
		waited(p, v.f.Figures)
		p.words(" of waiting; the user functions that waited most: ")
		us := append(v.funcs(runfmt.RoleCulprit), v.funcs(runfmt.RoleSite)...)
		p.join("; ", len(us), func(i int) {
			p.say("%v ", code(us[i].Function))
			waited(p, us[i].Figures)
			p.say(" (%v)", efig(us[i], runfmt.FigShare))
		})
		p.words(".")
	}
	w.advice[runfmt.AdviceShardLocks] = fixed("Hold locks for less time, shard them, or avoid shared state on the request path.")
	return w
}

// waited is a wait per request ("3.20 ms/request"), or in all when the
// requests are not known ("1.20 s total").
func waited(p *Prose, figs runfmt.Figures) {
	if us, ok := figs[runfmt.FigWaitPerRequest]; ok {
		p.say("%v/request", fig(runfmt.FigWaitPerRequest, us))
		return
	}
	p.say("%v total", fig(runfmt.FigWaitTotal, figs[runfmt.FigWaitTotal]))
}
