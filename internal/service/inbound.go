package service

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

// maxClientWalks bounds how many times one PeerReader walks every
// process's descriptors for ClientProcesses: a load of another tool's
// thousand connections is named by its first ones.
const maxClientWalks = 4

// maxClientsNamed bounds the connections one walk names.
const maxClientsNamed = 16

// ClientProcesses names, for connections Inbound returned (keyed as it
// keys them), the local process that holds each one's client end:
// "pid 4242 (curl -s ...)", as ProcessName says. A client on another
// host or in another network namespace, or one gone since, is left out.
// One walk of /proc serves them all (up to maxClientsNamed), and a reader
// walks at most maxClientWalks times.
func (r *PeerReader) ClientProcesses(conns map[uint64]netip.AddrPort) map[uint64]string {
	if len(conns) == 0 || r.clientWalks >= maxClientWalks {
		return nil
	}
	r.clientWalks++
	clientEnd := map[uint64]uint64{} // the client end's inode: the service's end's
	for ino := range conns {
		s, ok := r.known[ino]
		if !ok || len(clientEnd) >= maxClientsNamed {
			continue
		}
		for cino, c := range r.known {
			if c.local == s.remote && c.remote == s.local {
				clientEnd[cino] = ino
				break
			}
		}
	}
	if len(clientEnd) == 0 {
		return nil
	}
	out := map[uint64]string{}
	var w procWalker
	for _, pid := range w.listDir("/proc", nil) {
		for _, ino := range socketInodes(pid) {
			if server, ok := clientEnd[ino]; ok {
				out[server] = ProcessName(pid)
			}
		}
		if len(out) == len(clientEnd) {
			break
		}
	}
	return out
}
