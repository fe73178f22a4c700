package service

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DefaultReadyTimeout is WaitReady's timeout when given 0.
const DefaultReadyTimeout = 30 * time.Second

// readyLogLines is how many of the service's last lines an error quotes.
const readyLogLines = 10

// silentAfter is how long a connection may go unanswered before WaitReady
// asks whose port it is: half the 2 s perflab allows a silent port, so
// that the error comes within 2 s of the connection on a busy machine.
const silentAfter = time.Second

// finalAnswers is how many answers in a row with a status the probe does
// not accept make it final: one is enough to know the service is up, a
// few more tell a service that answers so to every request from one that
// fails now and then (one failing half its requests passes 31 times in
// 32). They cost a few milliseconds.
const finalAnswers = 5

// maxProbeDelay caps the wait between two probes: a service that starts
// listening is seen ready within this (plus one request) of it.
const maxProbeDelay = 20 * time.Millisecond

// ReadyProbe is the request WaitReady sends and how it reads the answer.
type ReadyProbe struct {
	URL string
	// Method, Header and Body make the request ("" is GET). perflab sends
	// the load's own first request, so that a POST-only endpoint or one
	// behind a token answers as it will under load.
	Method string
	Header http.Header
	Body   []byte
	// Insecure skips TLS certificate verification, as the load does.
	Insecure bool
	// Expect says which statuses mean ready (nil: 2xx and 3xx).
	Expect func(status int) bool
	// ExpectFlag, when set, is the flag that makes a status expected
	// (--expect-status): the request is the load's own, and a status
	// Expect refuses is one the load would count as an error.
	ExpectFlag string
}

// WaitReady sends probe's request until the service answers, and decides
// on the first answer:
//
//   - a status probe.Expect accepts: ready;
//   - 502, 503 or 504: a service, or a proxy in front of it, that is still
//     starting; it is asked again until the timeout;
//   - any other status, finalAnswers times in a row: the service is up
//     and answers that to every such request, so WaitReady says so at
//     once rather than waiting it out.
//
// A refused connection is a service not listening yet: it is asked again,
// unless the service listens on another port, as its output says (then
// the error names the URL to give). A connection accepted and not answered
// within silentAfter fails at once when the port is not the service's (p
// listens elsewhere, or nowhere yet); on the service's own port the answer
// is waited for, since a service may accept before it can answer (a
// pre-fork server loading its workers).
//
// WaitReady fails at once when p (which may be nil) exits first, and after
// timeout (DefaultReadyTimeout when 0); both errors quote the service's
// last log lines.
func WaitReady(ctx context.Context, probe ReadyProbe, timeout time.Duration, p *Process) error {
	u, err := url.ParseRequestURI(probe.URL)
	if err != nil {
		return fmt.Errorf("waiting for the service: bad URL %q: %w", probe.URL, err)
	}
	if probe.Method == "" {
		probe.Method = http.MethodGet
	}
	if probe.Expect == nil {
		probe.Expect = func(status int) bool { return status >= 200 && status <= 399 }
	}
	if timeout <= 0 {
		timeout = DefaultReadyTimeout
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The probe is cancelled with errExited as soon as the service exits,
	// even while a request waits for its answer.
	wctx, stop := context.WithCancelCause(tctx)
	defer stop(nil)
	if p != nil {
		go func() {
			select {
			case <-p.Exited():
				stop(errExited)
			case <-wctx.Done():
			}
		}()
	}
	r := &prober{probe: probe, u: u, client: probeClient(probe.Insecure), p: p, ports: newWrongPort(ctx, u, p)}
	return r.wait(ctx, wctx, timeout)
}

// errExited cancels the probe of a service that exited.
var errExited = errors.New("the service exited")

// prober is one WaitReady: its request, client and what it has seen.
type prober struct {
	probe   ReadyProbe
	u       *url.URL
	client  *http.Client
	p       *Process
	ports   *wrongPort
	lastErr error
	refused int // answers in a row with a status that is final
}

func (r *prober) wait(ctx, wctx context.Context, timeout time.Duration) error {
	delay := time.Millisecond
	for {
		st, err := r.attempt(wctx)
		if err == nil && !r.probe.Expect(st.code) && !retryable(st.code) {
			r.refused++
		} else {
			r.refused = 0
		}
		switch {
		case err == nil && r.probe.Expect(st.code):
			return nil
		case r.refused >= finalAnswers:
			return r.statusErr(st)
		case err == nil:
			err = fmt.Errorf("it answered %s", st.text)
		case errors.Is(err, errSilent):
			return r.silentErr()
		}
		// A request cut off by the timeout says something only when it
		// waited long for its answer.
		var u unanswered
		if wctx.Err() == nil || r.lastErr == nil || errors.As(err, &u) && time.Duration(u) >= silentAfter {
			r.lastErr = err
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			if ls := r.ports.check(time.Now()); len(ls) > 0 {
				return wrongPortErr(r.u, ls)
			}
		}
		wait := delay
		if r.refused > 0 {
			wait = time.Millisecond // the answers to come decide
		}
		select {
		case <-wctx.Done():
			return r.endErr(ctx, wctx, timeout)
		case <-time.After(wait):
		}
		delay = min(2*delay, maxProbeDelay)
	}
}

// status is an answer's status: its code, its text ("404 Not Found"),
// and the methods a 405 says the endpoint takes (its Allow header).
type status struct {
	code  int
	text  string
	allow string
}

// retryable says whether a status is a service still starting: a gateway
// whose backend is not up yet (502, 504) or a service that says it is
// not available yet (503).
func retryable(code int) bool {
	return code == http.StatusBadGateway || code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout
}

// errSilent cancels a request that a port not the service's accepted and
// did not answer.
var errSilent = errors.New("connected, no answer")

// attempt sends the request once and returns the answer's status. A
// connection left unanswered for silentAfter is cancelled with errSilent
// unless the port may be the service's own; one the caller gives up on
// is an unanswered error.
func (r *prober) attempt(ctx context.Context) (status, error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var once sync.Once
	var connected time.Time
	var timer *time.Timer
	trace := &httptrace.ClientTrace{ConnectDone: func(_, _ string, err error) {
		if err != nil {
			return
		}
		once.Do(func() {
			connected = time.Now()
			timer = time.AfterFunc(silentAfter, func() {
				if !r.ports.mayServe() {
					cancel(errSilent)
				}
			})
		})
	}}
	s, err := r.send(httptrace.WithClientTrace(actx, trace))
	once.Do(func() {}) // no timer starts after this; connected and timer are read below
	if timer != nil {
		timer.Stop()
	}
	switch cause := context.Cause(actx); {
	case err == nil:
		return s, nil
	case errors.Is(cause, errSilent):
		return s, errSilent
	case !connected.IsZero() && ctx.Err() != nil:
		return s, unanswered(time.Since(connected))
	}
	return s, err
}

// unanswered is a connection the service accepted and had not answered
// when the probe ended.
type unanswered time.Duration

func (u unanswered) Error() string {
	return fmt.Sprintf("connected, no answer in %s", time.Duration(u).Round(time.Millisecond))
}

// send sends the probe's request and reads the answer's status.
func (r *prober) send(ctx context.Context) (status, error) {
	req, err := http.NewRequestWithContext(ctx, r.probe.Method, r.probe.URL, bytes.NewReader(r.probe.Body))
	if err != nil {
		return status{}, err
	}
	if r.probe.Header != nil {
		req.Header = r.probe.Header.Clone()
	}
	if host := r.probe.Header.Get("Host"); host != "" {
		req.Host = host
	}
	resp, err := r.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			return status{}, ue.Err
		}
		return status{}, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close() // the status is the answer; the rest of the body is not needed
	return status{code: resp.StatusCode, text: resp.Status, allow: resp.Header.Get("Allow")}, nil
}

// statusErr says that the service answered a status that is final.
func (r *prober) statusErr(s status) error {
	what := fmt.Sprintf("the service answered %s to %s %s %d times in a row", s.text, r.probe.Method, r.probe.URL, r.refused)
	if s.code == http.StatusMethodNotAllowed && s.allow != "" {
		what += " (it takes " + s.allow + ")"
	}
	if r.probe.ExpectFlag != "" {
		return fmt.Errorf("%s: the load counts that status as an error; give %s %d if that is the answer to measure, else check the URL and the request",
			what, r.probe.ExpectFlag, s.code)
	}
	return fmt.Errorf("%s: want a status that says it is ready (2xx or 3xx)", what)
}

// silentErr says what perflab saw of a port that accepted and did not
// answer, and where the service listens instead.
func (r *prober) silentErr() error {
	where := "the service listens on no port yet"
	if ls := Listeners(r.p.PIDs()); len(ls) > 0 {
		where = "the service listens on " + joinAddrs(ls)
	}
	return fmt.Errorf("%s accepted the connection and sent no answer in %s to %s %s; %s, not there: another process holds that port (give the service's URL)",
		r.u.Host, silentAfter, r.probe.Method, r.probe.URL, where)
}

// endErr is the error of a probe that ended without an answer to act on:
// the service exited, the caller gave up, or the timeout passed.
func (r *prober) endErr(ctx, wctx context.Context, timeout time.Duration) error {
	switch {
	case errors.Is(context.Cause(wctx), errExited):
		return fmt.Errorf("%w at %s (%s)%s", ErrExitedBeforeReady, r.probe.URL, exitWords(r.p), logLines(r.p))
	case ctx.Err() != nil:
		return fmt.Errorf("waiting for the service at %s: %w", r.probe.URL, ctx.Err())
	}
	last := "no attempt finished"
	if r.lastErr != nil {
		last = "last error: " + r.lastErr.Error()
	}
	return fmt.Errorf("%w after %s at %s: %s%s%s", ErrNotReady, timeout, r.probe.URL, last, r.ports.elsewhere(), logLines(r.p))
}

// The errors of a service that never answered its readiness probe: it
// exited first, or the timeout passed.
var (
	ErrExitedBeforeReady = errors.New("service exited before it was ready")
	ErrNotReady          = errors.New("service not ready")
)

// probeClient is the readiness probe's client: no redirects followed, a
// new connection each time, no timeout of its own (the attempt decides).
func probeClient(insecure bool) *http.Client {
	tr := &http.Transport{DisableKeepAlives: true}
	if insecure {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
	}
	return &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport:     tr,
	}
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
