package service

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Listeners returns the TCP addresses the processes listen on, read from
// /proc/net/tcp{,6} and their file descriptors, sorted.
func Listeners(pids []int) []netip.AddrPort {
	owned := ownedSockets(pids)
	if len(owned) == 0 {
		return nil
	}
	listening, _ := listeningSockets() // unreadable: none known
	var out []netip.AddrPort
	for _, s := range listening {
		if _, ok := slices.BinarySearch(owned, s.inode); ok {
			out = append(out, netip.AddrPortFrom(s.local.Addr().Unmap(), s.local.Port()))
		}
	}
	slices.SortFunc(out, func(a, b netip.AddrPort) int { return a.Compare(b) })
	return slices.Compact(out)
}

// wrongPort watches a service that refuses the URL's connections for
// the sign that the URL names the wrong port: the service listens, not on
// that port, its listeners have not changed for half a second, and its own
// output names one of their ports (a service still starting may open a
// metrics port well before its API).
type wrongPort struct {
	want    []netip.AddrPort // the URL's addresses
	p       *Process
	seen    []netip.AddrPort
	since   time.Time
	checked time.Time
}

// newWrongPort watches p for a URL u on the wrong port (none watched when
// u's host is not a local address).
func newWrongPort(ctx context.Context, u *url.URL, p *Process) *wrongPort {
	w := &wrongPort{p: p}
	if addrs, err := resolveLocal(ctx, net.JoinHostPort(u.Hostname(), portOf(u))); err == nil {
		w.want = addrs
	}
	return w
}

// wrongPortSettle is how long the listeners must stay the same.
const wrongPortSettle = 500 * time.Millisecond

// check returns the listeners the service's output names, once the
// mistake is plain; nil until then.
func (w *wrongPort) check(now time.Time) []netip.AddrPort {
	if w.p == nil || len(w.want) == 0 || now.Sub(w.checked) < 200*time.Millisecond {
		return nil
	}
	w.checked = now
	ls := Listeners(w.p.PIDs())
	if !slices.Equal(ls, w.seen) {
		w.seen, w.since = ls, now
		return nil
	}
	if len(ls) == 0 || now.Sub(w.since) < wrongPortSettle || slices.ContainsFunc(ls, w.serves) {
		return nil
	}
	return w.announced(ls)
}

// wrongPortErr names where the service listens and the URL to give.
func wrongPortErr(u *url.URL, ls []netip.AddrPort) error {
	fixed := *u
	l := ls[0]
	if l.Addr().IsUnspecified() {
		fixed.Host = net.JoinHostPort(u.Hostname(), strconv.Itoa(int(l.Port())))
	} else {
		fixed.Host = l.String()
	}
	return fmt.Errorf("the service listens on %s, as its output says, not on %s: give %s (or start it on port %s)",
		joinAddrs(ls), u.Host, fixed.String(), portOf(u))
}

// portOf is a URL's port, its scheme's when it names none.
func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// elsewhere says where the service listens when none of its listeners
// takes the URL's connections ("" when it does, or listens nowhere).
func (w *wrongPort) elsewhere() string {
	if len(w.seen) == 0 || slices.ContainsFunc(w.seen, w.serves) {
		return ""
	}
	return fmt.Sprintf("; the service listens on %s, not on the URL's port", joinAddrs(w.seen))
}

// serves says whether a listener on l takes the URL's connections.
func (w *wrongPort) serves(l netip.AddrPort) bool {
	s := tcpSocket{local: l}
	return slices.ContainsFunc(w.want, s.serves)
}

// announced returns the listeners whose port the service's output names,
// the first named first.
func (w *wrongPort) announced(ls []netip.AddrPort) []netip.AddrPort {
	out := strings.Join(w.p.LogTail(readyLogLines), "\n")
	at := map[netip.AddrPort]int{}
	var named []netip.AddrPort
	for _, l := range ls {
		port := strconv.Itoa(int(l.Port()))
		i := strings.Index(out, ":"+port)
		if j := strings.Index(out, "port "+port); i < 0 || j >= 0 && j < i {
			i = j
		}
		if i >= 0 {
			at[l] = i
			named = append(named, l)
		}
	}
	slices.SortStableFunc(named, func(a, b netip.AddrPort) int { return at[a] - at[b] })
	return named
}

func joinAddrs(as []netip.AddrPort) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = a.String()
	}
	return strings.Join(s, ", ")
}

// mayServe says whether the URL's port may be the service's own: one of
// its listeners takes the URL's connections, or perflab cannot tell (no
// process known, or the URL's host is not a local address).
func (w *wrongPort) mayServe() bool {
	if w.p == nil || len(w.want) == 0 {
		return true
	}
	return slices.ContainsFunc(Listeners(w.p.PIDs()), w.serves)
}
