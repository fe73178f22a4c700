package capture

import (
	"context"
	"fmt"
	"strings"
)

// Cmdline returns the command line of the process serving base's
// net/http/pprof, from /debug/pprof/cmdline (its os.Args joined with NUL
// bytes), within 5s: what tells one Go process's endpoint from another's.
func (c *Client) Cmdline(ctx context.Context, base string) ([]string, error) {
	u, err := endpointURL(base, EndpointCmdline, "")
	if err != nil {
		return nil, err
	}
	body, hdr, err := c.get(ctx, u, probeTimeout)
	if err != nil {
		return nil, err
	}
	if looksHTML(body, hdr) {
		return nil, fmt.Errorf("%s returned an HTML page, not a command line: %w", u, ErrNoEndpoint)
	}
	return strings.Split(string(body), "\x00"), nil
}
