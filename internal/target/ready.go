package target

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// DefaultReadyTimeout is WaitReady's timeout when given 0.
const DefaultReadyTimeout = 30 * time.Second

// readyLogLines is how many of the service's last lines an error quotes.
const readyLogLines = 10

// WaitReady polls GET url until the service answers with a status expect
// accepts (nil: 2xx or 3xx): a service that answers 503 while it starts, or
// 404 to everything, is not ready to be measured. It fails at once when p
// (which may be nil) exits first, and after timeout (DefaultReadyTimeout
// when 0); both errors quote the service's last log lines.
func WaitReady(ctx context.Context, rawURL string, timeout time.Duration, p *Process, expect func(status int) bool) error {
	if expect == nil {
		expect = func(status int) bool { return status >= 200 && status <= 399 }
	}
	u, err := url.ParseRequestURI(rawURL)
	if err != nil {
		return fmt.Errorf("waiting for the service: bad URL %q: %w", rawURL, err)
	}
	if timeout <= 0 {
		timeout = DefaultReadyTimeout
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := probeClient()
	var exited <-chan struct{}
	if p != nil {
		exited = p.Exited()
	}
	delay := 10 * time.Millisecond
	var lastErr error
	ports := newWrongPort(ctx, u, p)
	for {
		err := probe(tctx, client, rawURL, expect)
		if err == nil {
			return nil
		} else if tctx.Err() == nil {
			lastErr = err
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			if ls := ports.check(time.Now()); len(ls) > 0 {
				return wrongPortErr(u, ls)
			}
		}
		select {
		case <-exited:
			return fmt.Errorf("service exited before it was ready at %s (%s)%s", rawURL, exitWords(p), logLines(p))
		case <-tctx.Done():
			if ctx.Err() != nil {
				return fmt.Errorf("waiting for the service at %s: %w", rawURL, ctx.Err())
			}
			return fmt.Errorf("service not ready after %s at %s: last error: %v%s%s", timeout, rawURL, lastErr, ports.elsewhere(), logLines(p))
		case <-time.After(delay):
		}
		delay = min(2*delay, 200*time.Millisecond)
	}
}

// probeClient is the readiness probe's client: a short timeout, no
// redirects followed, a new connection each time.
func probeClient() *http.Client {
	return &http.Client{
		Timeout:       2 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport:     &http.Transport{DisableKeepAlives: true},
	}
}

// probe GETs u once; a status expect refuses is an error naming it.
func probe(ctx context.Context, c *http.Client, u string, expect func(int) bool) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			return ue.Err
		}
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if err := resp.Body.Close(); err != nil {
		return err
	}
	if !expect(resp.StatusCode) {
		return fmt.Errorf("it answered %s, not an expected status (--expect-status)", resp.Status)
	}
	return nil
}

func exitWords(p *Process) string {
	if err := p.ExitErr(); err != nil {
		return err.Error()
	}
	return "exit status 0"
}

// logLines renders the last lines of the service's output for an error.
func logLines(p *Process) string {
	if p == nil {
		return ""
	}
	lines := p.LogTail(readyLogLines) // after an exit, once its last words are drained
	switch {
	case len(lines) > 0:
	case !p.launched:
		return ""
	case p.LogWritten() > 0:
		return "; the service printed no line of its own (only the output perflab asked for, such as the GC trace)"
	default:
		return "; the service printed nothing"
	}
	return "; last log lines:\n\t" + strings.Join(lines, "\n\t")
}
