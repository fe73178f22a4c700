package capture

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/files"
	"perflab/internal/runfmt"
)

// Client fetches profiles from Go net/http/pprof endpoints. Its zero value
// uses a plain http.Client; every request gets its own time limit.
type Client struct {
	// HTTP is the client used for requests; nil means a default client.
	HTTP *http.Client
}

const (
	// probeTimeout bounds Probe: the endpoints it asks answer at once.
	probeTimeout = 5 * time.Second
	// snapshotTimeout bounds profiles without a duration (heap, goroutine…),
	// like `go tool pprof`'s default for them, but shorter: 60s is long for
	// an instant snapshot.
	snapshotTimeout = 30 * time.Second
	// traceGrace is the extra time a trace of N seconds may take.
	traceGrace = 10 * time.Second
	// maxProfileBytes bounds a response body; real profiles are far smaller.
	maxProfileBytes = runfmt.MaxProfileBytes
)

var defaultHTTP = &http.Client{}

func (c *Client) http() *http.Client {
	if c == nil || c.HTTP == nil {
		return defaultHTTP
	}
	return c.HTTP
}

// durationGrace is the least extra time a profile of N seconds may take
// to be encoded and sent. A service starved of CPU answers late: on a
// busy 2-core machine a Go service held off its CPUs for most of a 3 s
// profile answered more than 2 s after it, and a run that gives up loses
// its whole CPU profile.
const durationGrace = 5 * time.Second

// durationTimeout is the time limit for a request that lasts seconds:
// 1.5×seconds as pprof's fetch does, but never less than seconds plus
// durationGrace.
func durationTimeout(seconds int) time.Duration {
	d := time.Duration(seconds) * time.Second
	return max(d+d/2, d+durationGrace)
}

var profileName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// endpointURL joins base ("http://host:port", with or without a trailing
// /debug/pprof) with /debug/pprof/name and query.
func endpointURL(base string, e Endpoint, query string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("pprof base URL %q: want http://host:port", base)
	}
	p := strings.TrimSuffix(u.Path, "/")
	p = strings.TrimSuffix(p, "/debug/pprof")
	u.Path = p + "/debug/pprof/" + string(e)
	u.RawQuery = query
	return u.String(), nil
}

// querySeconds returns the seconds=N parameter of query, or 0.
func querySeconds(query string) int {
	v, err := url.ParseQuery(query)
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(v.Get("seconds"))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// Probe tells whether base serves net/http/pprof, within 5s: the
// /debug/pprof/ index page will do; failing that (a service may mount only
// some handlers), /debug/pprof/cmdline must answer as net/http/pprof does,
// in plain text marked nosniff.
func (c *Client) Probe(ctx context.Context, base string) error {
	index, err := endpointURL(base, "", "")
	if err != nil {
		return err
	}
	body, _, err := c.get(ctx, index, probeTimeout)
	if err == nil && strings.Contains(string(body), "Types of profiles available") {
		return nil
	}
	if errors.Is(err, ErrTimeout) || ctx.Err() != nil {
		return fmt.Errorf("probing pprof endpoint: %w", err)
	}
	cmdline, _ := endpointURL(base, EndpointCmdline, "")
	body, hdr, err := c.get(ctx, cmdline, probeTimeout)
	if err == nil && strings.HasPrefix(hdr.Get("Content-Type"), "text/plain") &&
		hdr.Get("X-Content-Type-Options") == "nosniff" && !looksHTML(body, hdr) {
		return nil
	}
	if err == nil {
		err = fmt.Errorf("neither %s nor %s answers as net/http/pprof does: %w", index, cmdline, ErrNoEndpoint)
	}
	return fmt.Errorf("probing pprof endpoint: %w (import _ \"net/http/pprof\" in the service and serve it, or give the right address)", err)
}

// CPU takes a CPU profile of seconds (≥1) from base's /debug/pprof/profile.
// It returns the parsed profile and the bytes as served (gzipped protobuf).
func (c *Client) CPU(ctx context.Context, base string, seconds int) (*profile.Profile, []byte, error) {
	if seconds < 1 {
		return nil, nil, fmt.Errorf("cpu profile seconds %d: must be at least 1", seconds)
	}
	return c.Fetch(ctx, base, EndpointProfile, "seconds="+strconv.Itoa(seconds))
}

// Fetch gets the profile endpoint e serves from base's
// /debug/pprof/e?query and checks that it is of that kind. e is one of the
// Endpoint constants or a custom profile's name; query is e.g. "gc=1" or
// "seconds=10" (a delta profile over 10s). Requests with seconds=N time
// out after max(1.5×N, N+5s), others after 30s.
func (c *Client) Fetch(ctx context.Context, base string, e Endpoint, query string) (*profile.Profile, []byte, error) {
	if !profileName.MatchString(string(e)) {
		return nil, nil, fmt.Errorf("profile name %q: want allocs, heap, goroutine, mutex, block, threadcreate or profile", e)
	}
	u, err := endpointURL(base, e, query)
	if err != nil {
		return nil, nil, err
	}
	timeout := snapshotTimeout
	if s := querySeconds(query); s > 0 {
		timeout = durationTimeout(s)
	}
	body, hdr, err := c.get(ctx, u, timeout)
	if err != nil {
		return nil, nil, err
	}
	if looksHTML(body, hdr) {
		return nil, nil, fmt.Errorf("%s returned an HTML page, not a profile: %w (is this the service's net/http/pprof address?)", u, ErrNoEndpoint)
	}
	p, err := Decode(body)
	if err != nil {
		return nil, nil, fmt.Errorf("reading profile from %s: %w", u, err)
	}
	if err := checkKind(p, e); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", u, err)
	}
	return p, body, nil
}

// Trace records a Go execution trace of seconds (≥1) from base's
// /debug/pprof/trace and checks that the bytes start with the trace header.
func (c *Client) Trace(ctx context.Context, base string, seconds int) ([]byte, error) {
	if seconds < 1 {
		return nil, fmt.Errorf("trace seconds %d: must be at least 1", seconds)
	}
	u, err := endpointURL(base, EndpointTrace, "seconds="+strconv.Itoa(seconds))
	if err != nil {
		return nil, err
	}
	// A trace streams while it records, and a busy service (or machine)
	// flushes its last generation late: more margin than a profile's.
	body, hdr, err := c.get(ctx, u, durationTimeout(seconds)+traceGrace)
	if err != nil {
		return nil, err
	}
	if looksHTML(body, hdr) {
		return nil, fmt.Errorf("%s returned an HTML page, not a trace: %w", u, ErrNoEndpoint)
	}
	if !traceHeader.Match(body) {
		return nil, fmt.Errorf("%s did not return a Go execution trace: it starts with %q, want \"go 1.N trace\"", u, snippet(body, 16))
	}
	return body, nil
}

// traceHeader is how every Go execution trace begins ("go 1.22 trace\x00…").
var traceHeader = regexp.MustCompile(`^go 1\.[0-9]+ trace\x00`)

// get GETs u within timeout and returns the body of a 200 response, or an
// error naming u.
func (c *Client) get(ctx context.Context, u string, timeout time.Duration) ([]byte, http.Header, error) {
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("fetching %s: %w", u, err)
	}
	resp, err := c.http().Do(req)
	if err != nil {
		return nil, nil, transportError(ctx, u, timeout, err)
	}
	defer resp.Body.Close()
	body, err := files.ReadAll(resp.Body, maxProfileBytes, resp.ContentLength, "the response")
	if errors.Is(err, files.ErrTooLarge) {
		return nil, nil, fmt.Errorf("fetching %s: response larger than %d MiB", u, maxProfileBytes>>20)
	}
	if err != nil {
		return nil, nil, bodyError(ctx, u, timeout, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, statusError(u, resp, body)
	}
	return body, resp.Header, nil
}
