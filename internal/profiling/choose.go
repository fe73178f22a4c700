package profiling

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// choose decides how to profile (nil for not at all): the profiler asked
// for, else the service's endpoint if one answers and is the service's,
// else the registry's profiler for the runtimes of its processes.
func (p *Set) choose(ctx context.Context) (*Profiler, error) {
	c := &p.cfg
	if c.Choice == None {
		return nil, nil
	}
	name, one := c.Choice.Profiler()
	forced, known := p.reg.find(name)
	switch {
	case one && !known:
		return nil, fmt.Errorf("--profiler %s: not a profiler of the run (it has %s)", name, runfmt.NewProfilerSet(p.reg.Names()...))
	case one && !forced.Sampling.Endpoint:
		return forced, nil
	}
	runtimes := p.runtimes()
	e := forced
	if e == nil {
		e = p.reg.endpointProfiler()
	}
	base, err := p.probe(ctx, e, runtimes)
	switch {
	case err != nil:
		return nil, err
	case base != "":
		p.base = base
		c.Log("profiling through " + base + "/debug/pprof/")
		return e, nil
	case forced != nil:
		p.host.Degrade(runfmt.Degradation{Why: runfmt.DegradeNoEndpoint})
		return nil, nil
	case p.host.Service() == nil:
		if c.Pprof == "" {
			p.host.Degrade(runfmt.Degradation{Why: runfmt.DegradeNothingToSample})
		}
		return nil, nil
	}
	pr := p.reg.forRuntimes(runtimes)
	if c.Pprof != "" && pr != nil {
		p.host.Warn(fmt.Sprintf("--pprof %s not used: the service is sampled with %s instead", c.Pprof, pr.Name))
	}
	return pr, nil
}

// probe looks for the service's pprof endpoint among the candidates: the
// first that answers and is the service's, "" for none. Without --pprof,
// a service none of whose processes runs a runtime the endpoint serves is
// not probed: an endpoint found there is another's.
func (p *Set) probe(ctx context.Context, e *Profiler, runtimes map[runfmt.Runtime]bool) (string, error) {
	c := &p.cfg
	if e == nil {
		return "", nil
	}
	for _, base := range p.candidates() {
		if c.Pprof == "" && len(runtimes) > 0 && !e.servesAny(runtimes) {
			break
		}
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := p.client.Probe(pctx, base)
		cancel()
		if err != nil {
			if c.Pprof != "" {
				p.host.Warn(fmt.Sprintf("--pprof %s: %v", c.Pprof, err))
			}
			continue
		}
		if ok, err := p.accept(ctx, base); err != nil || ok {
			return base, err
		}
	}
	return "", nil
}

// accept checks that a pprof endpoint that answers is the service's. A
// guessed endpoint (the load URL's host, 127.0.0.1:6060) that is another
// process's is skipped with a warning; an explicit --pprof is an error,
// unless --force.
func (p *Set) accept(ctx context.Context, base string) (bool, error) {
	o := p.owner(ctx, base)
	explicit := p.cfg.Pprof != ""
	switch {
	case o.ok && !o.verified && !explicit && o.why != "":
		p.host.Warn(fmt.Sprintf("%s answers as net/http/pprof, but %s: profiling it anyway", base, o.why))
	case o.ok:
	case explicit && p.cfg.Force:
		p.host.Warn(fmt.Sprintf("--pprof %s: %s; profiling it anyway (--force)", base, o.why))
		return true, nil
	case explicit:
		return false, fmt.Errorf("--pprof %s: %s: %w; give the service's own net/http/pprof address, or --force to profile it anyway", base, o.why, ErrNotTheService)
	default:
		p.host.Warn(fmt.Sprintf("not profiling %s: %s", base, o.why))
	}
	return o.ok, nil
}

// runtimes are the runtimes of the service's processes now.
func (p *Set) runtimes() map[runfmt.Runtime]bool {
	out := map[runfmt.Runtime]bool{}
	svc := p.host.Service()
	if svc == nil {
		return out
	}
	for _, pid := range svc.PIDs() {
		if info, err := service.DetectRuntime(pid); err == nil {
			out[info.Runtime] = true
		}
	}
	return out
}

// candidates are the endpoints to probe: --pprof, else the load URL's
// host and the guessed endpoint (Config.Guess, by default
// net/http/pprof's customary 127.0.0.1:6060).
func (p *Set) candidates() []string {
	c := &p.cfg
	if c.Pprof != "" {
		return []string{strings.TrimRight(strings.TrimSuffix(strings.TrimRight(c.Pprof, "/"), "/debug/pprof"), "/")}
	}
	var out []string
	if u := c.LoadURL; u != nil {
		out = append(out, (&url.URL{Scheme: u.Scheme, Host: u.Host}).String())
	}
	if c.Guess != "" {
		return append(out, c.Guess)
	}
	return append(out, defaultGuess)
}

// defaultGuess is the pprof endpoint tried when the load URL's host serves
// none: net/http/pprof's customary address.
const defaultGuess = "http://127.0.0.1:6060"
