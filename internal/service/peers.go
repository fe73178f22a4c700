package service

import (
	"bufio"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// PeerReader reads the remote addresses of processes' outbound TCP
// connections, again and again over a window. Listing a process's sockets
// (/proc/PID/fd) is cheap; finding their addresses means reading the
// kernel's whole socket tables (/proc/PID/net/tcp{,6}), whose cost grows
// with the host's hash table, not with the sockets: 10-15 ms for both on a
// 24 GiB host (262,144 buckets). So the reader remembers every socket it
// has read and reads the tables again only when the processes hold a
// socket it has not seen, at most once per peerRetry, and every
// peerRefresh for states that changed.
//
// A connected socket's addresses never change, which is what makes the
// memory sound; inet_diag over netlink walks the same hash table, so it
// would cost as much per read.
type PeerReader struct {
	known map[uint64]tcpSocket
	self  map[netip.AddrPort]bool // the local ends of perflab's own sockets seen (Inbound)
	// clientWalks counts ClientProcesses' walks of every process.
	clientWalks int
	lastRead    time.Time
	reads       int // table reads, for the tests
	now         func() time.Time
}

const (
	// peerRetry spaces the reads a new socket calls for: a service that
	// opens a connection per call (or is sent one per request) has new
	// sockets at every look, and a read a second names its peers within
	// a window's first seconds for 1-1.5% of a core here.
	peerRetry = time.Second
	// peerRefresh re-reads the tables this often even when no socket is
	// new: a remembered connection may have closed while its descriptor
	// stays open (CLOSE_WAIT).
	peerRefresh = 5 * time.Second
)

// NewPeerReader returns a reader with nothing remembered.
func NewPeerReader() *PeerReader {
	return &PeerReader{known: map[uint64]tcpSocket{}, now: time.Now}
}

// Peers returns the remote addresses of the processes' outbound TCP
// connections (established sockets whose local port is not one they
// listen on: not the connections clients made to them), with how many
// connections each has. A socket opened since the last table read is
// missed until the next one, at most peerRetry later.
func (r *PeerReader) Peers(pids []int) (map[string]int, error) {
	owned := ownedSockets(pids)
	if len(owned) == 0 {
		return nil, nil
	}
	if !r.due(owned) {
		return r.outbound(owned), nil
	}
	if err := r.read(pids[0]); err != nil {
		return nil, err
	}
	// Reading the tables takes milliseconds, as long as a short
	// connection (one per call) lives: one open before the read may have
	// closed when its row was read, one opened during it is in the tables
	// but not in the first list. The processes' sockets listed after the
	// read as well catch those, counted per list so no address gets more
	// connections than it had at once.
	out := r.outbound(owned)
	for addr, n := range r.outbound(ownedSockets(pids)) {
		out[addr] = max(out[addr], n)
	}
	return out, nil
}

// ownedSockets lists the socket inodes the processes hold, once each: a
// socket a worker inherited from its master is one connection.
func ownedSockets(pids []int) []uint64 {
	var owned []uint64
	for _, pid := range pids {
		owned = append(owned, socketInodes(pid)...)
	}
	slices.Sort(owned)
	return slices.Compact(owned)
}

// outbound counts the known established sockets among owned whose local
// port is not one of owned's listening ports, per remote address.
func (r *PeerReader) outbound(owned []uint64) map[string]int {
	listening := map[uint16]bool{}
	for _, ino := range owned {
		if s, ok := r.known[ino]; ok && s.state == tcpListen {
			listening[s.local.Port()] = true
		}
	}
	out := map[string]int{}
	for _, ino := range owned {
		if s, ok := r.known[ino]; ok && s.state == tcpEstablished && !listening[s.local.Port()] {
			out[s.remote.String()]++
		}
	}
	return out
}

// due tells whether to read the tables now: some owned socket is unknown
// and the last read is peerRetry old, or the refresh is due.
func (r *PeerReader) due(owned []uint64) bool {
	if r.lastRead.IsZero() {
		return true
	}
	since := r.now().Sub(r.lastRead)
	if since >= peerRefresh {
		return true
	}
	if since < peerRetry {
		return false
	}
	for _, ino := range owned {
		if _, ok := r.known[ino]; !ok {
			return true
		}
	}
	return false
}

// read replaces what the reader knows with pid's network namespace's TCP
// sockets.
func (r *PeerReader) read(pid int) error {
	known := map[uint64]tcpSocket{}
	for _, name := range []string{"tcp", "tcp6"} {
		f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "net", name))
		if err != nil {
			continue
		}
		socks, err := parseProcNetTCP(f, maxNetTCPBytes)
		f.Close()
		if err != nil {
			return fmt.Errorf("reading /proc/%d/net/%s: %w", pid, name, err)
		}
		for _, s := range socks {
			known[s.inode] = s
		}
	}
	r.known, r.lastRead, r.reads = known, r.now(), r.reads+1
	return nil
}

// socketInodes lists the socket inodes among pid's open files.
func socketInodes(pid int) []uint64 {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []uint64
	for _, e := range ents {
		link, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil || !strings.HasPrefix(link, "socket:[") {
			continue
		}
		if ino, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]"), 10, 64); err == nil {
			out = append(out, ino)
		}
	}
	return out
}

// tcpEstablished is the state of a connected socket in /proc/net/tcp{,6}
// (include/net/tcp_states.h; tcpListen is beside ListenerOwner).
const tcpEstablished = 0x01

// maxNetTCPBytes bounds a read of /proc/net/tcp{,6}: about 50,000 sockets
// of ~150 bytes. The kernel lists the listening sockets first.
const maxNetTCPBytes = 8 << 20

type tcpSocket struct {
	local, remote netip.AddrPort
	state         int
	inode         uint64
}

// parseProcNetTCP reads /proc/net/tcp or tcp6, at most max bytes; lines it
// cannot read are skipped.
func parseProcNetTCP(r io.Reader, max int64) ([]tcpSocket, error) {
	sc := bufio.NewScanner(io.LimitReader(r, max))
	var out []tcpSocket
	first := true
	for sc.Scan() {
		if first { // the header
			first = false
			continue
		}
		f := strings.Fields(sc.Text())
		if len(f) < 10 {
			continue
		}
		local, err1 := parseHexAddr([]byte(f[1]))
		remote, err2 := parseHexAddr([]byte(f[2]))
		state, err3 := strconv.ParseUint(f[3], 16, 8)
		inode, err4 := strconv.ParseUint(f[9], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			continue
		}
		out = append(out, tcpSocket{local: unmap(local), remote: unmap(remote), state: int(state), inode: inode})
	}
	return out, sc.Err()
}

// unmap turns an IPv4-mapped IPv6 address (a dual-stack socket's) into IPv4.
func unmap(a netip.AddrPort) netip.AddrPort { return netip.AddrPortFrom(a.Addr().Unmap(), a.Port()) }
