package prose

import "perflab/internal/runfmt"

// networkStallWords word responses held in the kernel by Nagle's
// algorithm, and how to turn it off in the terms of the service's server
// or runtime.
var networkStallWords = oneKind(runfmt.FindingNetworkStall, networkStallTitle, networkStallDetail,
	advices{runfmt.AdviceNoDelay: noDelayAdvice})

// "network stall: 43.1 ms/request, responses held by Nagle's algorithm
// for the client's delayed ACK"
func networkStallTitle(v view, p *Prose) {
	p.say("network stall: %v/request, responses held by Nagle's algorithm for the client's delayed ACK", v.fig(runfmt.FigWaitPerRequest))
}

func networkStallDetail(v view, p *Prose) {
	p.say("Each response waited %v in the kernel after the service wrote it (%v of the mean latency, the request ledger's network row). ",
		v.fig(runfmt.FigWaitPerRequest), v.fig(runfmt.FigShare))
	p.say("The service sends a response in more than one write (headers, then body) with Nagle's algorithm on (TCP_NODELAY off on %v of %v connections): "+
		"a write waits until the client acknowledges the one before, and the client delays that acknowledgement (up to 40 ms on Linux).",
		v.fig(runfmt.FigNagleConns), v.fig(runfmt.FigConns))
}

// noDelayAdvice turns Nagle's algorithm off in the terms of the service's
// server or runtime, and says what that saves.
func noDelayAdvice(v view, p *Prose) {
	switch {
	case v.set(runfmt.SettingServer) == runfmt.ServerJDKHTTPServer:
		p.say("Turn Nagle's algorithm off: start the JVM with %v (the JDK's HttpServer then sets TCP_NODELAY on its connections).",
			code("-Dsun.net.httpserver.nodelay=true"))
	default:
		noDelayRuntime(runfmt.Runtime(v.set(runfmt.SettingRuntime)), p)
	}
	p.say(" Expected: the %v/request goes.", v.fig(runfmt.FigWaitPerRequest))
}

// noDelayRuntime is how the runtime turns Nagle's algorithm off on a
// connection.
func noDelayRuntime(rt runfmt.Runtime, p *Prose) {
	switch rt {
	case runfmt.RuntimeJVM:
		p.say("Turn Nagle's algorithm off on each accepted socket: %v (the server's TCP_NODELAY option), or write each response in one send.",
			code("Socket.setTcpNoDelay(true)"))
	case runfmt.RuntimeGo, "":
		p.say("Go turns Nagle's algorithm off on every connection unless told otherwise: remove the %v, or call %v on each connection.",
			code("SetNoDelay(false)"), code("net.TCPConn.SetNoDelay(true)"))
	case runfmt.RuntimeNode:
		p.say("Turn Nagle's algorithm off: %v on each connection, or the server option %v.", code("socket.setNoDelay(true)"), code("noDelay: true"))
	case runfmt.RuntimePython:
		p.say("Turn Nagle's algorithm off on each accepted socket: %v (the server's nodelay option), or write each response in one send.",
			code("sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)"))
	case runfmt.RuntimeRuby:
		p.say("Turn Nagle's algorithm off on each accepted socket: %v, or write each response in one send.",
			code("sock.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1)"))
	default:
		p.say("Turn Nagle's algorithm off on each accepted socket: %v, or write each response in one send (%v).",
			code("setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one)"), code("writev"))
	}
}
