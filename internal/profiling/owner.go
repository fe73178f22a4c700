package profiling

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"perflab/internal/service"
)

// ErrNotTheService marks a --pprof endpoint that belongs to another process
// than the service: bad input (exit 2) unless --force.
var ErrNotTheService = errors.New("the pprof endpoint is not the service's")

// ownership is what is known of a pprof endpoint's process.
type ownership struct {
	// ok: the endpoint is the service's, or nothing says otherwise.
	ok bool
	// verified: ok was proved (socket owner or command line).
	verified bool
	// why explains a mismatch, or how the endpoint was proved.
	why string
}

// owner proves that the pprof endpoint base belongs to the service: the
// process listening on its address must be one of the service's, or, when
// the address is not a local socket, the command line the endpoint reports
// (/debug/pprof/cmdline) must be one of theirs. With no service process
// known there is nothing to compare, and the endpoint is taken as given.
func (p *Set) owner(ctx context.Context, base string) ownership {
	pids := p.host.ServicePIDs(ctx)
	if len(pids) == 0 {
		return ownership{ok: true}
	}
	u, err := url.Parse(base)
	if err != nil {
		return ownership{why: err.Error()}
	}
	octx, cancel := context.WithTimeout(ctx, ownerTimeout)
	defer cancel()
	l, err := findListener(octx, u, pids)
	switch {
	case err != nil:
		return ownership{why: fmt.Sprintf("finding who listens on %s: %v", l.host, err)}
	case l.found && slices.Contains(pids, l.pid):
		return ownership{ok: true, verified: true, why: fmt.Sprintf("%s is the service's (%s)", l.host, service.ProcessName(l.pid))}
	}
	return p.ownerByCmdline(octx, base, pids, l)
}

// listener is the local process listening on an address, if found.
type listener struct {
	host  string // host:port
	pid   int
	found bool
}

// findListener finds the local process listening on u's address, looking
// at the service's processes pids first.
func findListener(ctx context.Context, u *url.URL, pids []int) (listener, error) {
	l := listener{host: hostPort(u)}
	var err error
	l.pid, l.found, err = service.ListenerOwner(ctx, l.host, pids)
	return l, err
}

// OtherListener says which local process serves u's address when it is
// not one of the service's processes pids ("127.0.0.1:8080 is served by
// nginx (pid 9), not by the service (pid 12)"); "" when one of pids
// serves it or no local process is found (a remote host, another network
// namespace).
func OtherListener(ctx context.Context, u *url.URL, pids []int) string {
	octx, cancel := context.WithTimeout(ctx, ownerTimeout)
	defer cancel()
	l, err := findListener(octx, u, pids)
	if err != nil || !l.found || slices.Contains(pids, l.pid) {
		return ""
	}
	return servedBy(l.host, l.pid, pids)
}

// ownerByCmdline judges an endpoint with no local socket, or another
// process's. That process may be a proxy (docker-proxy for a container's
// published port, a sidecar) that forwards to the service: then the
// command line the endpoint reports is not the listener's own, and it has
// the last word.
func (p *Set) ownerByCmdline(ctx context.Context, base string, pids []int, l listener) ownership {
	via := ""
	if l.found {
		via = servedBy(l.host, l.pid, pids)
	}
	args, err := p.client.Cmdline(ctx, base)
	switch {
	case err != nil && via != "":
		return ownership{why: via}
	case err != nil:
		return ownership{ok: true, why: "its process could not be identified: " + err.Error()}
	}
	if l.found {
		if own, err := service.Cmdline(l.pid); err != nil || slices.Equal(own, args) {
			return ownership{why: via} // the listener answers for itself
		}
	}
	for _, pid := range pids {
		if cl, err := service.Cmdline(pid); err == nil && slices.Equal(cl, args) {
			why := fmt.Sprintf("its command line is the service's (%s)", service.ProcessName(pid))
			if via != "" {
				why += fmt.Sprintf(", reached through %s on %s", service.ProcessName(l.pid), l.host)
			}
			return ownership{ok: true, verified: true, why: why}
		}
	}
	why := fmt.Sprintf("%s reports the command line %q, which no process of the service (%s) has", base, strings.Join(args, " "), pidList(pids))
	if via != "" {
		why = via + "; " + why
	}
	return ownership{why: why}
}

// ownerTimeout bounds the search for who listens on an address, and the
// question to a pprof endpoint whose process it is.
const ownerTimeout = 5 * time.Second

// hostPort is the host:port u's requests go to, the scheme's port when u
// names none.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	port := "80"
	if u.Scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// servedBy says that host is served by the process listener, which is not
// one of the service's processes pids.
func servedBy(host string, listener int, pids []int) string {
	return fmt.Sprintf("%s is served by %s, not by the service (%s)", host, service.ProcessName(listener), pidList(pids))
}

// pidList renders "pid 12" or "pids 12, 13, 14 and 5 more".
func pidList(pids []int) string {
	if len(pids) == 1 {
		return fmt.Sprintf("pid %d", pids[0])
	}
	var parts []string
	for i, p := range pids {
		if i == 4 {
			parts = append(parts, fmt.Sprintf("%d more", len(pids)-i))
			break
		}
		parts = append(parts, fmt.Sprint(p))
	}
	return "pids " + strings.Join(parts, ", ")
}
