package session

import "perflab/internal/service"

// readyProbe is the request that tells the service is ready. On the load's
// own URL it is the load's first request (method, headers, body), judged
// by the statuses the load expects: a POST-only endpoint or one behind a
// token answers it as it will under load, and a status the load would
// count as an error is said before the run rather than after its timeout.
// A URL of its own (--ready) is a health check, asked with GET: 2xx, 3xx
// or a status the load expects.
func (c *Config) readyProbe() service.ReadyProbe {
	p := service.ReadyProbe{URL: c.ReadyURL, Insecure: c.Load.Insecure}
	if len(c.Load.Targets) > 0 && c.Load.Targets[0].URL.String() == c.ReadyURL {
		t := c.Load.Targets[0]
		p.Method, p.Header, p.Body = t.Method, t.Header, t.Body
		p.Expect, p.ExpectFlag = c.Load.ExpectStatus.Has, "--expect-status"
		return p
	}
	expect := c.Load.ExpectStatus
	p.Expect = func(status int) bool { return status >= 200 && status <= 399 || expect.Has(status) }
	return p
}
