package analysis

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// CPU per endpoint. For a Go service the CPU profile shows, under
// net/http's dispatch, which handler each request ran (handlers.go); the
// load knows how many requests went to each target. A handler is matched to
// the targets it served by its name: the words of its name
// ("handleItem": item) against those of the target's path ("/api/item":
// api, item), or, with a single target, to that target. What the profile
// cannot tie to a request (reading and writing requests in net/http, the
// GC's background work, the runtime) belongs to no endpoint, and the share
// of CPU the handlers explain is said.

// endpointSource describes the attribution in run.json.
const endpointSource = "Go net/http handler frames in the CPU profile"

// endpointMinShare is the least share of CPU a handler needs to be listed.
const endpointMinShare = 0.005

// EndpointInput is what Endpoints reads: the CPU profile of a window with
// its requests, the service's CPU measured in it, and the load.
type EndpointInput struct {
	CPU      *profile.Profile
	Requests int64
	Target   *runfmt.TargetSummary
	Load     *runfmt.LoadResult
	// UserCode is the run's ownership model: the handlers' owners are
	// user functions by it.
	UserCode UserCode
}

// Endpoints attributes the CPU profile to request handlers (see above);
// nil without a CPU profile. For a profile without net/http's dispatch, only
// Note is set (when the load had several targets, so the user asked).
func Endpoints(in EndpointInput) *runfmt.Endpoints {
	measured := 0.0
	if in.Target != nil {
		measured = in.Target.CPUMsPerRequest
	}
	v := NewCPUView(in.CPU, in.Requests, in.UserCode, measured)
	if v.Costs == nil || v.Costs.total == 0 {
		return nil
	}
	var targets []runfmt.TargetStats
	if in.Load != nil {
		targets = in.Load.Targets
	}
	e := &runfmt.Endpoints{Source: endpointSource}
	h := newHandlerFinder(v.Costs)
	if h == nil {
		if len(targets) < 2 {
			return nil
		}
		e.Note = "CPU per endpoint is not attributed: the profile shows no net/http dispatch (perflab attributes it for Go services serving with net/http, profiled through net/http/pprof)"
		return e
	}
	s := v.Costs.set
	handlerOf := make([]int32, s.NumStacks())
	cost := map[int32]int64{}
	var explained int64
	for si := 0; si < s.NumStacks(); si++ {
		handlerOf[si] = -1
		val := s.Value(si, v.Costs.vi)
		if val == 0 {
			continue
		}
		st := s.Stack(si)
		if i := h.handler(st); i >= 0 {
			handlerOf[si] = st[i]
			cost[st[i]] += val
			explained += val
		}
	}
	e.ExplainedPct = 100 * v.Share(explained)
	if explained == 0 {
		e.Note = "CPU per endpoint is not attributed: no sample of the CPU profile ran under net/http's dispatch"
		return e
	}
	u := projectUser(v.Costs, h)
	for _, f := range ByCost(cost) {
		sh := v.Share(cost[f])
		if sh < endpointMinShare {
			break
		}
		ep := runfmt.EndpointCPU{Handler: s.Funcs[f].Name, File: s.Funcs[f].File, CPUPct: 100 * sh, CPUUsPerRequest: v.Us(sh)}
		if top := u.owners(1, endpointMinShare, func(si int) bool { return handlerOf[si] == f }); len(top) > 0 {
			ep.Owner, ep.OwnerPct = s.Funcs[top[0].Func].Name, 100*v.Share(top[0].Cum)
		}
		e.Handlers = append(e.Handlers, ep)
	}
	matchTargets(e, targets, in.Requests)
	return e
}

// matchTargets ties handlers to the load's targets and turns their CPU per
// request of the whole load into CPU per request of their targets.
func matchTargets(e *runfmt.Endpoints, targets []runfmt.TargetStats, requests int64) {
	if len(targets) == 0 || requests <= 0 {
		return
	}
	if len(targets) == 1 {
		for i := range e.Handlers {
			e.Handlers[i].Targets = []string{targets[0].Target}
		}
		return
	}
	words := make([]map[string]bool, len(targets))
	for i, t := range targets {
		words[i] = pathWords(t.Target)
	}
	served := map[int]bool{}
	for i := range e.Handlers {
		ep := &e.Handlers[i]
		hw := nameWords(ep.Handler)
		best, bestScore := []int(nil), 0
		for ti := range targets {
			score := 0
			for w := range hw {
				if words[ti][w] {
					score++
				}
			}
			switch {
			case score > bestScore:
				best, bestScore = []int{ti}, score
			case score == bestScore && score > 0:
				best = append(best, ti)
			}
		}
		var n int64
		for _, ti := range best {
			ep.Targets = append(ep.Targets, targets[ti].Target)
			n += targets[ti].Requests
			served[ti] = true
		}
		if n > 0 {
			ep.CPUUsPerRequest *= float64(requests) / float64(n)
			ep.PerTargetRequest = true
		}
	}
	var unmatched []string
	for ti, t := range targets {
		if !served[ti] {
			unmatched = append(unmatched, t.Target)
		}
	}
	if len(unmatched) > 0 {
		e.Note = fmt.Sprintf("no handler's name matches %s: the CPU of their requests is among the handlers without a target (CPU per request of the whole load)", strings.Join(unmatched, ", "))
	}
}

// genericWords say nothing about which route a handler serves.
var genericWords = map[string]bool{
	"handle": true, "handler": true, "handlers": true, "serve": true, "http": true, "https": true,
	"api": true, "get": true, "post": true, "put": true, "patch": true, "delete": true,
	"func": true, "v1": true, "v2": true, "v3": true, "main": true, "app": true, "server": true,
	"route": true, "routes": true, "index": true, "do": true, "fm": true,
}

// pathWords are the words of a target's URL path: "GET http://h/api/item?id=7" -> item.
func pathWords(target string) map[string]bool {
	raw := target
	if _, u, ok := strings.Cut(target, " "); ok {
		raw = u
	}
	p := raw
	if u, err := url.Parse(raw); err == nil {
		p = u.Path
	}
	return words(p)
}

// nameWords are the words of a handler's own name, without package,
// receiver or closure suffix: "demo.(*app).handleItem" -> item.
func nameWords(fn string) map[string]bool {
	fn = goClosure.ReplaceAllString(stripTypeArgs(fn), "")
	rel := fn[strings.LastIndexByte(fn, '/')+1:]
	if _, r, ok := strings.Cut(rel, "."); ok {
		rel = r
	}
	rel = rel[strings.LastIndexByte(rel, '.')+1:]
	return words(rel)
}

// words splits camelCase, snake_case and path text into lower-case words,
// dropping generic ones and a plural's final s.
func words(s string) map[string]bool {
	out := map[string]bool{}
	var cur []rune
	flush := func() {
		w := strings.TrimSuffix(strings.ToLower(string(cur)), "s")
		if len(w) > 1 && !genericWords[w] && !genericWords[w+"s"] {
			out[w] = true
		}
		cur = cur[:0]
	}
	prevLower := false
	for _, r := range s {
		switch {
		case unicode.IsUpper(r):
			if prevLower {
				flush()
			}
			cur = append(cur, r)
			prevLower = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur = append(cur, r)
			prevLower = true
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	return out
}
