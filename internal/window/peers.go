package window

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
	"perflab/internal/service"
)

// PeerSampler watches the service's outbound connections over the window:
// a downstream wait is named with the addresses the service talks to.
type PeerSampler struct {
	mu   sync.Mutex
	seen map[string]int // the most connections seen at once, per address
	done chan struct{}
	// inbound, when set, also watches the connections clients other than
	// perflab made to the service (see clients); others are those seen,
	// by socket.
	inbound *clientWatch
	others  map[uint64]netip.AddrPort
	// who names the local process of an other client's connection, by
	// the same key, where it could be found.
	who map[uint64]string
	// notice is told the addresses the service is connected to at each
	// look (nil: nobody asks).
	notice func([]netip.AddrPort)
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

func startPeerSampler(ctx context.Context, pids func() []int, inbound *clientWatch, notice func([]netip.AddrPort)) *PeerSampler {
	ps := &PeerSampler{seen: map[string]int{}, done: make(chan struct{}), inbound: inbound, others: map[uint64]netip.AddrPort{}, who: map[uint64]string{},
		notice: notice}
	go func() {
		defer close(ps.done)
		tick := time.NewTicker(peerInterval)
		defer tick.Stop()
		reader := service.NewPeerReader()
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

func (ps *PeerSampler) sample(reader *service.PeerReader, pids []int) {
	peers, err := reader.Peers(pids)
	if err != nil {
		return
	}
	if ps.notice != nil {
		addrs := make([]netip.AddrPort, 0, len(peers))
		for a := range peers {
			if ap, err := netip.ParseAddrPort(a); err == nil {
				addrs = append(addrs, ap)
			}
		}
		ps.notice(addrs)
	}
	var others, fresh map[uint64]netip.AddrPort
	if w := ps.inbound; w != nil {
		others = reader.Inbound(pids, w.ports, func(c netip.AddrPort) bool { return w.ours.Has(c.Port()) })
	}
	ps.mu.Lock()
	for ino, c := range others {
		if _, ok := ps.others[ino]; !ok {
			if fresh == nil {
				fresh = map[uint64]netip.AddrPort{}
			}
			fresh[ino] = c
		}
	}
	ps.mu.Unlock()
	// Who the new clients are, while they are connected.
	who := reader.ClientProcesses(fresh)
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for addr, n := range peers {
		ps.seen[addr] = max(ps.seen[addr], n)
	}
	maps.Copy(ps.others, others)
	maps.Copy(ps.who, who)
}

// Clients waits for the sampler to stop and returns how many connections
// other clients made to the service in the window (at least: a short one
// between two looks is missed) and their addresses, most connections
// first, each with the local processes that made them where perflab found
// them ("127.0.0.1 by pid 4242 (curl -s ...)").
func (ps *PeerSampler) Clients() (int, []string) {
	if ps == nil {
		return 0, nil
	}
	<-ps.done
	ps.mu.Lock()
	defer ps.mu.Unlock()
	byHost, procs := map[string]int{}, map[string][]string{}
	for ino, c := range ps.others {
		h := c.Addr().String()
		byHost[h]++
		if name, ok := ps.who[ino]; ok && !slices.Contains(procs[h], name) {
			procs[h] = append(procs[h], name)
		}
	}
	hosts := slices.Collect(maps.Keys(byHost))
	slices.SortFunc(hosts, func(a, b string) int {
		if c := cmp.Compare(byHost[b], byHost[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	for i, h := range hosts {
		if names := procs[h]; len(names) > 0 {
			slices.Sort(names)
			hosts[i] = h + " by " + strings.Join(names, " and ")
		}
	}
	return len(ps.others), hosts
}

// List waits for the sampler to stop and returns "addr (N connections)",
// most connections first.
func (ps *PeerSampler) List() []string {
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

// StartPeers samples the connections of the service's processes pids
// until ctx ends: those to its peers, and those clients other than the
// load (whose local ports are ours) made to the targets' ports. notice,
// when set, is told the addresses the service is connected to at each
// look.
func StartPeers(ctx context.Context, pids func() []int, targets []load.Target, ours *load.PortSet, notice func([]netip.AddrPort)) *PeerSampler {
	w := &clientWatch{ports: map[uint16]bool{}, ours: ours}
	for _, t := range targets {
		if p, err := strconv.ParseUint(t.URL.Port(), 10, 16); err == nil {
			w.ports[uint16(p)] = true
		} else if t.URL.Scheme == "https" {
			w.ports[443] = true
		} else {
			w.ports[80] = true
		}
	}
	return startPeerSampler(ctx, pids, w, notice)
}
