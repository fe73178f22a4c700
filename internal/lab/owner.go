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
	host := u.Host
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		host = net.JoinHostPort(u.Hostname(), port)
	}
	octx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	pid, found, err := target.ListenerOwner(octx, host, pids)
	switch {
	case err != nil:
		return ownership{why: fmt.Sprintf("finding who listens on %s: %v", host, err)}
	case found && slices.Contains(pids, pid):
		return ownership{ok: true, verified: true, why: fmt.Sprintf("%s is the service's (%s)", host, target.ProcessName(pid))}
	case found:
		return ownership{why: fmt.Sprintf("%s is served by %s, not by the service (%s)", host, target.ProcessName(pid), pidList(pids))}
	}
	args, err := p.client.Cmdline(octx, base)
	if err != nil {
		return ownership{ok: true, why: "its process could not be identified: " + err.Error()}
	}
	for _, pid := range pids {
		if cl, err := target.Cmdline(pid); err == nil && slices.Equal(cl, args) {
			return ownership{ok: true, verified: true, why: fmt.Sprintf("its command line is the service's (%s)", target.ProcessName(pid))}
		}
	}
	return ownership{why: fmt.Sprintf("%s reports the command line %q, which no process of the service (%s) has", base, strings.Join(args, " "), pidList(pids))}
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
