package service

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// tcpListen is the state of a listening socket in /proc/net/tcp{,6}
// (include/net/tcp_states.h; tcpEstablished is beside parseProcNetTCP).
const tcpListen = 0x0A

// parseHexAddr parses "0100007F:1F90" (127.0.0.1:8080) or the 32-digit
// IPv6 form.
func parseHexAddr(b []byte) (netip.AddrPort, error) {
	host, port, ok := bytes.Cut(b, []byte{':'})
	p, err := strconv.ParseUint(string(port), 16, 16)
	if !ok || err != nil {
		return netip.AddrPort{}, fmt.Errorf("address %q: want HEXADDR:HEXPORT", truncate(b, 60))
	}
	raw := make([]byte, hex.DecodedLen(len(host)))
	if _, err := hex.Decode(raw, host); err != nil || len(raw) != 4 && len(raw) != 16 {
		return netip.AddrPort{}, fmt.Errorf("address %q: want 8 or 32 hex digits", truncate(b, 60))
	}
	for i := 0; i < len(raw); i += 4 {
		binary.BigEndian.PutUint32(raw[i:], binary.NativeEndian.Uint32(raw[i:]))
	}
	a, _ := netip.AddrFromSlice(raw)
	return netip.AddrPortFrom(a, uint16(p)), nil
}

// serves says whether a socket listening on l accepts connections to a.
// Its address is unmapped: a dual-stack wildcard stays "::", which takes
// IPv4 too; "0.0.0.0" takes IPv4 only.
func (l tcpSocket) serves(a netip.AddrPort) bool {
	if l.local.Port() != a.Port() {
		return false
	}
	la, want := l.local.Addr(), a.Addr().Unmap()
	return la == want || la.IsUnspecified() && (la.Is6() || want.Is4())
}

// ListenerOwner returns the process that listens on hostport (a local TCP
// address such as 127.0.0.1:6060 or localhost:8080), looking first among
// candidates (the service's processes) and then at every process. found is
// false when no local socket listens there (a remote host, another network
// namespace) or its owner cannot be read.
func ListenerOwner(ctx context.Context, hostport string, candidates []int) (pid int, found bool, err error) {
	addrs, err := resolveLocal(ctx, hostport)
	if err != nil || len(addrs) == 0 {
		return 0, false, err
	}
	listening, err := listeningSockets()
	if err != nil {
		return 0, false, err
	}
	var inodes []uint64
	for _, l := range listening {
		if slices.ContainsFunc(addrs, l.serves) {
			inodes = append(inodes, l.inode)
		}
	}
	if len(inodes) == 0 {
		return 0, false, nil
	}
	for _, pid := range candidates {
		if holdsSocket(pid, inodes) {
			return pid, true, nil
		}
	}
	var w procWalker
	for _, pid := range w.listDir("/proc", nil) {
		if ctx.Err() != nil {
			return 0, false, ctx.Err()
		}
		if holdsSocket(pid, inodes) {
			return pid, true, nil
		}
	}
	return 0, false, nil
}

// listeningSockets are the TCP sockets listening in this network
// namespace (/proc/net/tcp and tcp6).
func listeningSockets() ([]tcpSocket, error) {
	var out []tcpSocket
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(file)
		if err != nil {
			continue // no IPv6, or no procfs net
		}
		socks, err := parseProcNetTCP(f, maxNetTCPBytes)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", file, err)
		}
		for _, s := range socks {
			if s.state == tcpListen {
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// resolveLocal turns host:port into addresses (IP literals as they are,
// names through the resolver within a second).
func resolveLocal(ctx context.Context, hostport string) ([]netip.AddrPort, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, fmt.Errorf("address %q: %w", hostport, err)
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("address %q: port %q is not a number", hostport, port)
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.AddrPort{netip.AddrPortFrom(a, uint16(p))}, nil
	}
	rctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(rctx, "ip", host)
	if err != nil {
		return nil, nil // not resolvable here: not a local address either
	}
	var out []netip.AddrPort
	for _, a := range ips {
		out = append(out, netip.AddrPortFrom(a, uint16(p)))
	}
	return out, nil
}

// holdsSocket says whether one of pid's file descriptors is one of the
// sockets.
func holdsSocket(pid int, inodes []uint64) bool {
	return slices.ContainsFunc(socketInodes(pid), func(ino uint64) bool { return slices.Contains(inodes, ino) })
}

// ProcessName describes a process for a message: "python3 (pid 4242)",
// with its command line when it can be read.
func ProcessName(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		if comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); err == nil {
			return fmt.Sprintf("%s (pid %d)", strings.TrimSpace(string(comm)), pid)
		}
		return fmt.Sprintf("pid %d", pid)
	}
	cmd := strings.Join(strings.Fields(strings.ReplaceAll(string(b), "\x00", " ")), " ")
	if len(cmd) > 80 {
		cmd = cmd[:77] + "..."
	}
	return fmt.Sprintf("pid %d (%s)", pid, cmd)
}

// Cmdline returns a process's arguments from /proc/PID/cmdline.
func Cmdline(pid int) ([]string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00"), nil
}

// ProcessTree returns pid and its descendants.
func ProcessTree(pid int) []int {
	var w procWalker
	return w.tree(pid, nil)
}

// LoopbackListeners are the TCP sockets pid listens on at 127.0.0.1, by
// inode, with their ports, as its network namespace lists them
// (/proc/PID/net/tcp): a debugger port it opens on a signal shows as a new
// one.
func LoopbackListeners(pid int) (map[uint64]uint16, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/net/tcp")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	socks, err := parseProcNetTCP(f, maxNetTCPBytes)
	if err != nil {
		return nil, err
	}
	owned := socketInodes(pid)
	out := map[uint64]uint16{}
	loopback := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	for _, s := range socks {
		if s.state == tcpListen && s.local.Addr() == loopback && slices.Contains(owned, s.inode) {
			out[s.inode] = s.local.Port()
		}
	}
	return out, nil
}
