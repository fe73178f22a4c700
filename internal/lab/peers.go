package lab

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"perflab/internal/load"
	"perflab/internal/target"
)

// peerSampler watches the service's outbound connections over the window:
// a downstream wait is named with the addresses the service talks to.
type peerSampler struct {
	mu   sync.Mutex
	seen map[string]int // the most connections seen at once, per address
	done chan struct{}
	// inbound, when set, also watches the connections clients other than
	// perflab made to the service (see clients); others are those seen,
	// by socket.
	inbound *clientWatch
	others  map[uint64]netip.AddrPort
}

// clientWatch is what tells perflab's connections to the service from
// other clients': the ports the load is sent to and the load's own local
// ports.
type clientWatch struct {
	ports map[uint16]bool
	ours  *load.PortSet
}

// peerInterval is how often the service's sockets are listed: short
// connections (a call per request without keep-alive) show up in some of
// the lists (the reader spaces its reads of the socket tables further).
const peerInterval = 250 * time.Millisecond

func startPeerSampler(ctx context.Context, pids func() []int, inbound *clientWatch) *peerSampler {
	ps := &peerSampler{seen: map[string]int{}, done: make(chan struct{}), inbound: inbound, others: map[uint64]netip.AddrPort{}}
	go func() {
		defer close(ps.done)
		tick := time.NewTicker(peerInterval)
		defer tick.Stop()
		reader := target.NewPeerReader()
		for {
			ps.sample(reader, pids())
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return ps
}

func (ps *peerSampler) sample(reader *target.PeerReader, pids []int) {
	peers, err := reader.Peers(pids)
	if err != nil {
		return
	}
	var others map[uint64]netip.AddrPort
	if w := ps.inbound; w != nil {
		others = reader.Inbound(pids, w.ports, func(c netip.AddrPort) bool { return w.ours.Has(c.Port()) })
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for addr, n := range peers {
		ps.seen[addr] = max(ps.seen[addr], n)
	}
	maps.Copy(ps.others, others)
}

// clients waits for the sampler to stop and returns how many connections
// other clients made to the service in the window (at least: a short one
// between two looks is missed) and their addresses, most connections
// first.
func (ps *peerSampler) clients() (int, []string) {
	if ps == nil {
		return 0, nil
	}
	<-ps.done
	ps.mu.Lock()
	defer ps.mu.Unlock()
	byHost := map[string]int{}
	for _, c := range ps.others {
		byHost[c.Addr().String()]++
	}
	hosts := slices.Collect(maps.Keys(byHost))
	slices.SortFunc(hosts, func(a, b string) int {
		if c := cmp.Compare(byHost[b], byHost[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return len(ps.others), hosts
}

// list waits for the sampler to stop and returns "addr (N connections)",
// most connections first.
func (ps *peerSampler) list() []string {
	if ps == nil {
		return nil
	}
	<-ps.done
	ps.mu.Lock()
	defer ps.mu.Unlock()
	addrs := make([]string, 0, len(ps.seen))
	for a := range ps.seen {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool {
		if ps.seen[addrs[i]] != ps.seen[addrs[j]] {
			return ps.seen[addrs[i]] > ps.seen[addrs[j]]
		}
		return addrs[i] < addrs[j]
	})
	out := make([]string, 0, len(addrs))
	for i, a := range addrs {
		if i == 5 {
			out = append(out, fmt.Sprintf("and %d more", len(addrs)-i))
			break
		}
		n := ps.seen[a]
		unit := "connections"
		if n == 1 {
			unit = "connection"
		}
		out = append(out, fmt.Sprintf("%s (%d %s)", a, n, unit))
	}
	return out
}

// watchPeers samples the service's outbound connections until the returned
// function is called.
func (s *session) watchPeers() (stop func()) {
	if s.proc == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &clientWatch{ports: map[uint16]bool{}, ours: &s.loadPorts}
	for _, t := range s.cfg.Load.Targets {
		if p, err := strconv.ParseUint(t.URL.Port(), 10, 16); err == nil {
			w.ports[uint16(p)] = true
		} else if t.URL.Scheme == "https" {
			w.ports[443] = true
		} else {
			w.ports[80] = true
		}
	}
	s.waits.peers = startPeerSampler(ctx, s.proc.PIDs, w)
	return cancel
}
