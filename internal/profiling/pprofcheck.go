package profiling

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"perflab/internal/capture"
	"perflab/internal/service"
)

// CheckPprof checks an explicit --pprof endpoint as soon as the service
// is ready, before the warm-up: one that does not answer as net/http/pprof
// while another of the service's listeners does is an error naming that
// one (ErrNotTheService: the address given is not the service's
// endpoint). Anything else is left to Pick, after the warm-up (a service
// may open its pprof listener late).
func (p *Set) CheckPprof(ctx context.Context) error {
	c := &p.cfg
	if c.Pprof == "" || c.Choice == None || c.Force {
		return nil
	}
	given := p.candidates()[0]
	pctx, cancel := context.WithTimeout(ctx, time.Second)
	err := p.client.Probe(pctx, given)
	cancel()
	if err == nil {
		return nil
	}
	for _, base := range p.servedEndpoints(ctx) {
		if base != given {
			return fmt.Errorf("--pprof %s: %s; the service serves net/http/pprof at %s/debug/pprof/: give --pprof %s (%w)",
				c.Pprof, probeFailure(err), base, base, ErrNotTheService)
		}
	}
	return nil
}

// probeFailure says in a few words why an endpoint did not answer as
// net/http/pprof.
func probeFailure(err error) string {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "nothing listens there"
	case errors.Is(err, capture.ErrTimeout):
		return "it does not answer"
	case errors.Is(err, capture.ErrNoEndpoint):
		return "it does not serve net/http/pprof"
	}
	return err.Error()
}

// servedEndpoints are the service's loopback or wildcard listeners that
// answer as net/http/pprof, each probed for at most half a second.
func (p *Set) servedEndpoints(ctx context.Context) []string {
	var out []string
	for _, l := range service.Listeners(p.host.ServicePIDs(ctx)) {
		a := l.Addr()
		if !a.IsLoopback() && !a.IsUnspecified() {
			continue
		}
		host := "127.0.0.1"
		if a.Is6() && !a.Is4In6() && a.IsLoopback() {
			host = "[::1]"
		}
		base := fmt.Sprintf("http://%s:%d", host, l.Port())
		pctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		err := p.client.Probe(pctx, base)
		cancel()
		if err == nil {
			out = append(out, base)
		}
	}
	return out
}
