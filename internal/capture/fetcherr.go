package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// transportError explains a failed request to u.
func transportError(ctx context.Context, u string, timeout time.Duration, err error) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("fetching %s: %w", u, ctx.Err())
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("pprof endpoint %s did not answer within %s: %w", u, timeout, ErrTimeout)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("fetching %s: nothing listens there (%w): %w", u, err, ErrNoEndpoint)
	}
	return fmt.Errorf("fetching %s: %w", u, err)
}

// bodyError explains a response body that could not be read to the end.
func bodyError(ctx context.Context, u string, timeout time.Duration, err error) error {
	if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("pprof endpoint %s did not finish its answer within %s: %w", u, timeout, ErrTimeout)
	}
	return fmt.Errorf("reading response from %s: %w (truncated response)", u, err)
}

// statusError explains a non-200 answer. net/http/pprof marks its own error
// messages with the header X-Go-Pprof: 1 (see its serveError); those are
// shown as they are, with a hint for the common ones.
func statusError(u string, resp *http.Response, body []byte) error {
	if resp.Header.Get("X-Go-Pprof") != "" {
		msg := strings.TrimSpace(snippet(body, 500))
		return fmt.Errorf("pprof endpoint %s refused (HTTP %d): %s%s", u, resp.StatusCode, msg, pprofHint(msg))
	}
	if resp.StatusCode == http.StatusNotFound {
		return fmt.Errorf("fetching %s: 404 Not Found: %w (import _ \"net/http/pprof\" and serve http.DefaultServeMux, or mount its handlers on your mux)", u, ErrNoEndpoint)
	}
	msg := ""
	if !looksHTML(body, resp.Header) && len(body) > 0 {
		msg = ": " + strings.TrimSpace(snippet(body, 200))
	}
	return fmt.Errorf("fetching %s: HTTP %s%s", u, resp.Status, msg)
}

// pprofHint suggests a fix for net/http/pprof's known refusals.
func pprofHint(msg string) string {
	switch {
	case strings.Contains(msg, "WriteTimeout"):
		return " (ask for fewer seconds or raise the service's http.Server WriteTimeout)"
	case strings.Contains(msg, "already in use"):
		return " (another CPU profile or trace of this service is running; retry when it ends)"
	}
	return ""
}

// looksHTML tells whether a response is a web page rather than a profile.
func looksHTML(body []byte, hdr http.Header) bool {
	if strings.HasPrefix(hdr.Get("Content-Type"), "text/html") {
		return true
	}
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '<' && utf8.Valid(b[:min(len(b), 64)])
}

// snippet returns at most n bytes of b as printable text.
func snippet(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return strings.ToValidUTF8(string(b), "?")
}
