package lab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"perflab/internal/target"
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

// servicePIDs are the processes of the service: the launched or attached
// process tree, else the owner of the load URL's listening socket (and its
// children), else none known.
func (s *session) servicePIDs(ctx context.Context) []int {
	if s.proc != nil {
		return s.proc.PIDs()
	}
	if len(s.cfg.Load.Targets) == 0 {
		return nil
	}
	pid, found, err := target.ListenerOwner(ctx, s.cfg.Load.Targets[0].URL.Host, nil)
	if err != nil || !found {
		return nil
	}
	return target.ProcessTree(pid)
}

// owner proves that the pprof endpoint base belongs to the service: the
// process listening on its address must be one of the service's, or, when
// the address is not a local socket, the command line the endpoint reports
// (/debug/pprof/cmdline) must be one of theirs. With no service process
// known there is nothing to compare, and the endpoint is taken as given.
func (p *profileSet) owner(ctx context.Context, base string) ownership {
	pids := p.s.servicePIDs(ctx)
	if len(pids) == 0 {
		return ownership{ok: true}
	}
	u, err := url.Parse(base)
	if err != nil {
		return ownership{why: err.Error()}
	}
	host := hostPort(u)
	octx, cancel := context.WithTimeout(ctx, ownerTimeout)
	defer cancel()
	listener, found, err := target.ListenerOwner(octx, host, pids)
	switch {
	case err != nil:
		return ownership{why: fmt.Sprintf("finding who listens on %s: %v", host, err)}
	case found && slices.Contains(pids, listener):
		return ownership{ok: true, verified: true, why: fmt.Sprintf("%s is the service's (%s)", host, target.ProcessName(listener))}
	}
	// No local socket, or another process's. That process may be a proxy
	// (docker-proxy for a container's published port, a sidecar) that
	// forwards to the service: then the command line the endpoint reports
	// is not the listener's own, and it has the last word.
	via := ""
	if found {
		via = servedBy(host, listener, pids)
	}
	args, err := p.client.Cmdline(octx, base)
	switch {
	case err != nil && via != "":
		return ownership{why: via}
	case err != nil:
		return ownership{ok: true, why: "its process could not be identified: " + err.Error()}
	}
	if found {
		if own, err := target.Cmdline(listener); err != nil || slices.Equal(own, args) {
			return ownership{why: via} // the listener answers for itself
		}
	}
	for _, pid := range pids {
		if cl, err := target.Cmdline(pid); err == nil && slices.Equal(cl, args) {
			why := fmt.Sprintf("its command line is the service's (%s)", target.ProcessName(pid))
			if via != "" {
				why += fmt.Sprintf(", reached through %s on %s", target.ProcessName(listener), host)
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
	return fmt.Sprintf("%s is served by %s, not by the service (%s)", host, target.ProcessName(listener), pidList(pids))
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
