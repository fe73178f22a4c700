package ledger

import (
	"path"
	"strings"
)

// databaseServer is a database server a peer can be: its name in the
// ledger, the process names it runs as and its usual port.
type databaseServer struct {
	name  string
	procs []string
	port  uint16
}

// databaseServers are the servers whose answers are queries. A server is
// known by its process (the one listening at the peer's address, on this
// machine) or, when that is not local, by its usual port.
var databaseServers = []databaseServer{
	{"postgres", []string{"postgres", "postmaster"}, 5432},
	{"mysql", []string{"mysqld", "mariadbd"}, 3306},
	{"redis", []string{"redis-server", "valkey-server"}, 6379},
	{"mongodb", []string{"mongod", "mongos"}, 27017},
	{"memcached", []string{"memcached"}, 11211},
}

// databaseOf names the database server a peer is from its process's name
// (proc, "" when not local) or its port; "" when it is none of them.
func databaseOf(proc string, port uint16) string {
	proc = path.Base(strings.TrimSpace(proc))
	for _, d := range databaseServers {
		for _, p := range d.procs {
			if proc == p {
				return d.name
			}
		}
	}
	if proc != "" && proc != "." {
		return "" // a local process of another name at a database's port
	}
	for _, d := range databaseServers {
		if port == d.port {
			return d.name
		}
	}
	return ""
}
