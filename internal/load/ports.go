package load

import (
	"net"
	"sync/atomic"
)

// PortSet records the local TCP ports of a load's connections, so that
// perflab can tell its own connections to a service from other clients'.
// It is safe for concurrent use; a port is one bit, 8 KiB in all.
type PortSet struct{ bits [1024]atomic.Uint64 }

// Add records port.
func (p *PortSet) Add(port int) {
	if p != nil && port > 0 && port < 65536 {
		p.bits[port>>6].Or(1 << (port & 63))
	}
}

// Has says whether a connection of the load used port.
func (p *PortSet) Has(port uint16) bool {
	return p != nil && p.bits[port>>6].Load()&(1<<(port&63)) != 0
}

// addConn records a connection's local port.
func (p *PortSet) addConn(c net.Conn) {
	if p == nil || c == nil {
		return
	}
	if a, ok := c.LocalAddr().(*net.TCPAddr); ok {
		p.Add(a.Port)
	}
}
