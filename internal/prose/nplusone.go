package prose

import "perflab/internal/runfmt"

// nPlusOneWords word requests that make many round trips to a database,
// and how to read the rows with one query in the runtime's usual terms.
var nPlusOneWords = oneKind(runfmt.FindingNPlusOne, nPlusOneTitle, nPlusOneDetail,
	advices{runfmt.AdviceOneQuery: oneQueryAdvice})

// "n+1 queries: 101 queries/request to postgres, 8.14 ms/request"
func nPlusOneTitle(v view, p *Prose) {
	p.say("n+1 queries: %v queries/request to %v, %v/request", v.fig(runfmt.FigQueries), word(v.set(runfmt.SettingDatabase)), v.fig(runfmt.FigWaitPerRequest))
}

func nPlusOneDetail(v view, p *Prose) {
	p.say("Each request made %v round trips to %v at %v, answered in %v each: %v per request waiting for them (%v of the mean latency, the request ledger's downstream row)",
		v.fig(runfmt.FigQueries), word(v.set(runfmt.SettingDatabase)), word(firstOf(v.f.Evidence.Peers)), v.fig(runfmt.FigAnswer),
		v.fig(runfmt.FigWaitPerRequest), v.fig(runfmt.FigShare))
	if v.has(runfmt.FigPeerCPU) {
		p.say(", and the database used %v of CPU per request", v.fig(runfmt.FigPeerCPU))
	}
	p.say(". %v or more queries per request is the N+1 shape: one query, then one more for each row it returned.", v.fig(runfmt.FigQueriesMin))
	switch c := v.culprit(); {
	case c.Function != "" && v.has(runfmt.FigDatabaseShare):
		p.say(" They come from %v: %v of the service's CPU is database work under it.", code(short(c)), v.fig(runfmt.FigDatabaseShare))
	case c.Function != "":
		p.say(" They come from %v, where the requests' threads wait for the answers (the wall-time profile).", code(short(c)))
	}
}

// firstOf is the first of ss, or "".
func firstOf(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	return ss[0]
}

// oneQueryAdvice is the fix in the runtime's usual terms, and what it
// saves.
func oneQueryAdvice(v view, p *Prose) {
	p.words("Read the rows with one query: a JOIN, or one more query with WHERE id IN (...) over the ids the first one returned")
	switch runfmt.Runtime(v.set(runfmt.SettingRuntime)) {
	case runfmt.RuntimePython:
		p.say(" (Django: %v or %v; SQLAlchemy: %v or %v)", code("select_related"), code("prefetch_related"), code("joinedload"), code("selectinload"))
	case runfmt.RuntimeRuby:
		p.say(" (Active Record: %v or %v)", code("includes"), code("preload"))
	case runfmt.RuntimeJVM:
		p.say(" (JPA: %v or an entity graph)", code("JOIN FETCH"))
	case runfmt.RuntimeNode:
		p.say(" (Sequelize: %v; Prisma: %v)", code("include"), code("include"))
	}
	saved := v.val(runfmt.FigWaitPerRequest) * (v.val(runfmt.FigQueries) - 1) / max(v.val(runfmt.FigQueries), 1)
	p.say(". Expected: all but one or two of the %v round trips go, up to %v per request of waiting, and the client's and the database's CPU for each query.",
		v.fig(runfmt.FigQueries), fig(runfmt.FigWaitPerRequest, saved))
}
