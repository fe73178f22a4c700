package lab

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"perflab/internal/target"
)

// peerSampler watches the service's outbound connections over the window:
// a downstream wait is named with the addresses the service talks to.
type peerSampler struct {
	mu   sync.Mutex
	seen map[string]int // the most connections seen at once, per address
	done chan struct{}
}

// peerInterval is how often the service's sockets are listed: short
// connections (a call per request without keep-alive) show up in some of
// the lists (the reader spaces its reads of the socket tables further).
const peerInterval = 250 * time.Millisecond

func startPeerSampler(ctx context.Context, pids func() []int) *peerSampler {
	ps := &peerSampler{seen: map[string]int{}, done: make(chan struct{})}
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
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for addr, n := range peers {
		ps.seen[addr] = max(ps.seen[addr], n)
	}
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
	s.waits.peers = startPeerSampler(ctx, s.proc.PIDs)
	return cancel
}
