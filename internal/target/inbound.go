package target

import (
	"net/netip"
	"os"
)

// Inbound returns the connections clients other than perflab made to the
// processes on one of ports (the ports the load is sent to): established
// sockets of theirs whose local port is one they listen on, keyed by
// socket inode, with the client's address. A client is perflab when ours
// says so (its load's local ports) or perflab's own process holds the
// client end (a profile fetch, a readiness probe). It reads what the last
// Peers call read of the socket tables: call it after Peers.
func (r *PeerReader) Inbound(pids []int, ports map[uint16]bool, ours func(netip.AddrPort) bool) map[uint64]netip.AddrPort {
	if r.self == nil {
		r.self = map[netip.AddrPort]bool{}
	}
	for _, ino := range socketInodes(os.Getpid()) {
		if s, ok := r.known[ino]; ok {
			r.self[s.local] = true
		}
	}
	owned := ownedSockets(pids)
	listening := map[uint16]bool{}
	for _, ino := range owned {
		if s, ok := r.known[ino]; ok && s.state == tcpListen && ports[s.local.Port()] {
			listening[s.local.Port()] = true
		}
	}
	var out map[uint64]netip.AddrPort
	for _, ino := range owned {
		s, ok := r.known[ino]
		if !ok || s.state != tcpEstablished || !listening[s.local.Port()] || r.self[s.remote] || ours(s.remote) {
			continue
		}
		if out == nil {
			out = map[uint64]netip.AddrPort{}
		}
		out[ino] = s.remote
	}
	return out
}
