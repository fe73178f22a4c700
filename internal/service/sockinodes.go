package service

// SocketInodes lists the socket inodes the processes hold (each once),
// listening sockets and connections alike: a caller comparing two lists
// tells connections that stay open from connections opened per request.
func SocketInodes(pids []int) []uint64 { return ownedSockets(pids) }
