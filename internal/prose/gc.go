package prose

import "perflab/internal/runfmt"

// gcWords word a garbage collector's share of the CPU, with the user
// functions that allocate most per request.
var gcWords = oneKind(runfmt.FindingGC,
	func(v view, p *Prose) { p.say("garbage collection takes %v of CPU", v.fig(runfmt.FigShare)) },
	gcDetail, advices{runfmt.AdviceAllocateLess: gcAdvice})

func gcDetail(v view, p *Prose) {
	p.say("The GC used %v of the target's CPU (from %v)", v.fig(runfmt.FigShare), word(gcSource(v.set(runfmt.SettingSource))))
	if v.has(runfmt.FigCPUPerRequest) {
		p.say(", %v per request", v.fig(runfmt.FigCPUPerRequest))
	}
	if v.has(runfmt.FigAllocRate) {
		p.say("; allocation rate %v", v.fig(runfmt.FigAllocRate))
	}
	if v.has(runfmt.FigCollections) {
		p.say("; %v collections, heap peak %v", v.fig(runfmt.FigCollections), v.fig(runfmt.FigHeapPeak))
	}
	p.words(".")
	as := v.funcs(runfmt.RoleAllocator)
	switch {
	case v.has(runfmt.FigBytesPerRequest):
		p.say(" Requests allocate %v each", v.fig(runfmt.FigBytesPerRequest))
		if len(as) > 0 {
			p.words("; the top allocating user functions: ")
			p.join("; ", len(as), func(i int) {
				p.say("%v %v/request", code(as[i].Function), efig(as[i], runfmt.FigBytesPerRequest))
				if as[i].Callee != "" {
					p.say(" in %v", code(as[i].Callee))
				}
				p.say(" (%v objects)", efig(as[i], runfmt.FigObjectsPerRequest))
			})
		}
		p.words(".")
	case len(as) > 0:
		p.words(" No allocation profile; by CPU spent allocating (runtime.mallocgc), the user functions allocating most are ")
		p.join(", ", len(as), func(i int) { p.say("%v", code(as[i].Function)) })
		p.words(".")
	}
}

// gcSource names where the GC's share was read.
func gcSource(src string) string {
	if src == runfmt.SourceCPUProfile {
		return "the CPU profile's GC workers and assists"
	}
	return src
}

func gcAdvice(v view, p *Prose) {
	p.say("Allocate less on the request path (reuse buffers, avoid conversions to string and []byte, preallocate slices), "+
		"or trade memory for CPU: raising GOGC (now %v) makes collections rarer and cuts GC CPU at the cost of a larger heap; "+
		"GOMEMLIMIT caps the heap so a high GOGC stays safe (try %v).", code(v.set(runfmt.SettingGOGC)), code("perflab sweep --env GOGC=100,400,800"))
}
