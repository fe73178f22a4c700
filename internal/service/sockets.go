package service

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// SocketPeers maps the inodes of the connected TCP sockets of pid's
// network namespace to their remote addresses ("127.0.0.1:9999"): what a
// thread blocked on a socket waits for. Listening sockets are left out.
func SocketPeers(pid int) (map[uint64]string, error) {
	out := map[uint64]string{}
	for _, name := range []string{"tcp", "tcp6"} {
		path := filepath.Join("/proc", strconv.Itoa(pid), "net", name)
		f, err := os.Open(path)
		if err != nil {
			continue // no IPv6, or the process is gone
		}
		socks, err := parseProcNetTCP(f, maxNetTCPBytes)
		f.Close()
		if err != nil {
			return out, fmt.Errorf("reading %s: %w", path, err)
		}
		for _, s := range socks {
			if s.state != tcpListen {
				out[s.inode] = s.remote.String()
			}
		}
	}
	return out, nil
}
