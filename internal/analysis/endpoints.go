package analysis

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// CPU per endpoint. The CPU profile shows which handler each request ran:
// for a Go service, under net/http's dispatch (handlers.go); for a Python
// one, under its web framework's (routes.go). The load knows how many
// requests of each target the service answered. A handler is matched to
// the targets it served by the URL rules of a Python view's decorators
// (viewroutes.go), else by its name: the words of its name ("handleItem",
// "export_orders": item, export, order) against those of the target's
// path ("/api/item": api, item), or, with a single target, to that
// target. The server's and framework's work on a request outside any
// handler (reading and writing it, routing it) cannot be told apart by
// endpoint: it is charged to every request alike. What no request ran
// (a Go service's GC background work and runtime, a pre-fork server's
// master, background threads) belongs to no endpoint, and its share is
// said: the parts add up to the CPU measured.

// endpointMinShare is the least share of CPU a handler needs to be listed.
const endpointMinShare = 0.005

// EndpointInput is what Endpoints reads: the CPU profile of a window with
// the requests the service answered in it, the service's CPU measured in
// it, and the load.
type EndpointInput struct {
	CPU      *profile.Profile
	Requests int64
	Target   *runfmt.TargetSummary
	Load     *runfmt.LoadResult
	// UserCode is the run's ownership model: the handlers' owners are
	// user functions by it.
	UserCode UserCode
	// UnsampledStartMs is the part of the measured CPU per request no
	// profiler could sample (runfmt.CPUAccount.UnsampledStartMs).
	UnsampledStartMs float64
	// Sources, when set, are where a Python view's source is read for the
	// URL rules of its decorators (viewroutes.go).
	Sources *Sources
	// RunnableCoverage, for a CPU profile from a profiler that counts a
	// thread waiting for a CPU as working (py-spy, rbspy), is how many
	// times the CPU measured its samples stand for (runfmt's profiling
	// coverage); 0 for one that samples the CPU itself (endpointmargin.go).
	RunnableCoverage float64
}

// Endpoints attributes the CPU profile to request handlers and load
// targets (see above); nil without a CPU profile. For a profile without a
// dispatch perflab knows, only Note is set (when the load had several
// targets, so the user asked).
func Endpoints(in EndpointInput) *runfmt.Endpoints {
	measured := 0.0
	if in.Target != nil {
		measured = in.Target.CPUMsPerRequest
	}
	v := NewCPUView(in.CPU, in.Requests, in.UserCode, measured, in.UnsampledStartMs)
	if v.Costs == nil || v.Costs.total == 0 {
		return nil
	}
	var targets []runfmt.TargetStats
	if in.Load != nil {
		targets = in.Load.Targets
	}
	h := newRequestFinder(v.Costs)
	if h == nil {
		if len(targets) < 2 {
			return nil
		}
		return &runfmt.Endpoints{Dispatch: runfmt.DispatchNetHTTP, UnattributedPct: 100,
			Note: "CPU per endpoint is not attributed: the profile shows no request dispatch perflab knows (Go's net/http, profiled through net/http/pprof; Flask, Django and FastAPI views, profiled with py-spy)"}
	}
	c := splitByRequest(v.Costs, h)
	e := &runfmt.Endpoints{Dispatch: h.dispatchName(), ExplainedPct: 100 * v.Share(c.explained), RequestPct: 100 * v.Share(c.request),
		WaitMarginPct: 100 * waitMargin(in.RunnableCoverage)}
	// The rest, the workers' start-up before they were sampled included:
	// the three parts add up to the CPU measured.
	e.UnattributedPct = max(100-e.ExplainedPct-e.RequestPct, 0)
	if v.UsPerRequest > 0 {
		e.RequestUsPerRequest = v.Us(v.Share(c.request))
	}
	if c.explained == 0 {
		e.Note = "CPU per endpoint is not attributed: no sample of the CPU profile ran under a request handler"
		return e
	}
	s := v.Costs.set
	u := projectUser(v.Costs, h)
	var rules [][]string // per handler: its view's URL rules
	samples, total := handlerSamples(v.Costs, c.handlerOf)
	for _, f := range ByCost(c.cost) {
		sh := v.Share(c.cost[f])
		if sh < endpointMinShare {
			break
		}
		ep := runfmt.EndpointCPU{Handler: s.Funcs[f].Name, File: s.Funcs[f].File, CPUPct: 100 * sh, CPUUsPerRequest: v.Us(sh), Samples: samples[f]}
		ep.MarginUsPerRequest = ep.CPUUsPerRequest * handlerMargin(samples[f], total, e.WaitMarginPct/100)
		if top := u.owners(1, endpointMinShare, func(si int) bool { return c.handlerOf[si] == f }); len(top) > 0 {
			ep.Owner, ep.OwnerPct = s.Funcs[top[0].Func].Name, 100*v.Share(top[0].Cum)
		}
		e.Handlers = append(e.Handlers, ep)
		rules = append(rules, viewRules(in.Sources, ep.Handler, ep.File, sampledLine(in.CPU, ep.Handler, ep.File)))
	}
	matchTargets(e, targets, in.Requests, rules)
	return e
}

// answered is how many of a target's requests the service answered (with
// any status), as the whole load's figures per request count them.
func answered(t runfmt.TargetStats) int64 {
	if t.Status == nil {
		return t.Requests - t.Errors
	}
	var n int64
	for _, c := range t.Status {
		n += c
	}
	return n
}

// matchTargets ties handlers to the load's targets (by their URL rules,
// else by name), turns their CPU per request of the whole load (requests
// answered) into CPU per request of their targets, and sums each
// target's.
func matchTargets(e *runfmt.Endpoints, targets []runfmt.TargetStats, requests int64, rules [][]string) {
	if len(targets) == 0 || requests <= 0 {
		return
	}
	served := map[int]bool{}
	for i := range e.Handlers {
		ep := &e.Handlers[i]
		best := []int{0}
		if len(targets) > 1 {
			best = ruleTargets(rules[i], targets)
		}
		if len(best) == 0 && len(targets) > 1 {
			best = bestTargets(ep.Handler, targets)
		}
		var n int64
		for _, ti := range best {
			ep.Targets = append(ep.Targets, targets[ti].Target)
			n += answered(targets[ti])
			served[ti] = true
		}
		if n > 0 {
			ep.CPUUsPerRequest *= float64(requests) / float64(n)
			ep.MarginUsPerRequest *= float64(requests) / float64(n)
			ep.PerTargetRequest = true
		}
	}
	var unmatched []string
	for ti, t := range targets {
		if !served[ti] {
			unmatched = append(unmatched, t.Target)
			continue
		}
		tc := runfmt.TargetCPU{Target: t.Target, Requests: answered(t)}
		var variance float64 // the handlers' counts vary apart
		for _, ep := range e.Handlers {
			if ep.PerTargetRequest && slices.Contains(ep.Targets, t.Target) {
				tc.HandlerUsPerRequest += ep.CPUUsPerRequest
				variance += ep.MarginUsPerRequest * ep.MarginUsPerRequest
			}
		}
		tc.MarginUsPerRequest = math.Sqrt(variance)
		tc.CPUUsPerRequest = tc.HandlerUsPerRequest + e.RequestUsPerRequest
		e.Targets = append(e.Targets, tc)
	}
	if len(unmatched) > 0 {
		e.Note = fmt.Sprintf("no handler's name matches %s: the CPU of their requests is among the handlers without a target (CPU per request of the whole load)", strings.Join(unmatched, ", "))
	}
}

// ruleTargets are the targets whose paths one of rules matches.
func ruleTargets(rules []string, targets []runfmt.TargetStats) []int {
	var out []int
	for ti, t := range targets {
		if slices.ContainsFunc(rules, func(r string) bool { return ruleMatches(r, t.Target) }) {
			out = append(out, ti)
		}
	}
	return out
}

// bestTargets are the targets whose paths share the most words with the
// handler's name (none when no word is shared).
func bestTargets(handler string, targets []runfmt.TargetStats) []int {
	hw := nameWords(handler)
	var best []int
	bestScore := 0
	for ti, t := range targets {
		score := 0
		for w := range pathWords(t.Target) {
			if hw[w] {
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
	return best
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
// receiver or closure suffix: "demo.(*app).handleItem" -> item; with its
// receiver or class when the name alone says nothing.
func nameWords(fn string) map[string]bool {
	fn = goClosure.ReplaceAllString(stripTypeArgs(fn), "")
	rel := fn[strings.LastIndexByte(fn, '/')+1:]
	if _, r, ok := strings.Cut(rel, "."); ok {
		rel = r
	}
	if w := words(rel[strings.LastIndexByte(rel, '.')+1:]); len(w) > 0 {
		return w
	}
	return words(fn[strings.LastIndexByte(fn, '/')+1:]) // a method named for its verb: "ReportView.get" -> report, view
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
