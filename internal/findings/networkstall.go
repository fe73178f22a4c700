package findings

import (
	"math"
	"strings"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// networkStallRule reports responses held in the kernel by Nagle's
// algorithm, from the ledger's network row: the service writes a
// response in more than one send (headers, then body) on a connection
// with TCP_NODELAY off, so a send waits until the client acknowledges the
// one before, and the client delays that acknowledgement (up to 40 ms on
// Linux). It claims the row's Nagle time: a client-io finding keeps only
// the rest. Its advice turns Nagle off in the terms of the service's
// runtime, or of its server when that has a setting of its own (the JDK's
// HttpServer).
var networkStallRule = oneKind(runfmt.FindingNetworkStall, networkStallFinding, networkStallTitle, networkStallDetail,
	advices{runfmt.AdviceNoDelay: noDelayAdvice})

func networkStallFinding(c *context) []ranked {
	lt := ledgerTime(c.in)
	r := lt.Row(runfmt.PartNetwork)
	if r == nil || r.Socket == nil || r.Socket.NagleConns == 0 {
		return nil
	}
	row, measured := r.Ms()
	ms := math.Min(r.Socket.NagleMs, row)
	if !measured || !claimable(lt, ms) {
		return nil
	}
	s := r.Socket
	f := runfmt.Finding{Kind: runfmt.FindingNetworkStall, Advice: runfmt.AdviceNoDelay, Figures: runfmt.Figures{
		runfmt.FigWaitPerRequest: 1000 * ms, runfmt.FigShare: ms / lt.LatencyMs,
		runfmt.FigConns: float64(s.Conns), runfmt.FigNagleConns: float64(s.NagleConns),
	}}
	f.Settings = f.Settings.With(runfmt.SettingRuntime, string(c.in.Runtime)).With(runfmt.SettingWaitMethod, runfmt.WaitFromLedger)
	if c.in.Runtime == runfmt.RuntimeJVM && profileHas(c.in.CPU, jdkHTTPServer) {
		f.Settings = f.Settings.With(runfmt.SettingServer, runfmt.ServerJDKHTTPServer)
	}
	c.found = giveUpNetwork(c.found, lt, 1000*ms)
	return []ranked{{f: f, rank: f.Figures[runfmt.FigWaitPerRequest]}}
}

// jdkHTTPServer is the package of the JDK's HttpServer's implementation,
// whose frames name it in a JVM's profile.
const jdkHTTPServer = "sun.net.httpserver."

// profileHas says whether a function of p (nil: none) is named with
// prefix.
func profileHas(p *profile.Profile, prefix string) bool {
	if p == nil {
		return false
	}
	for _, f := range p.Function {
		if strings.HasPrefix(f.Name, prefix) {
			return true
		}
	}
	return false
}

// giveUpNetwork leaves a client-io finding of the ledger only the network
// row's time beyond the Nagle stall's us per request, dropping it when
// that is too little to claim.
func giveUpNetwork(found []ranked, lt *runfmt.TimeAccount, us float64) []ranked {
	row, _ := rowsMs(lt, runfmt.PartNetwork)
	out := found[:0]
	for _, r := range found {
		if r.f.Kind != runfmt.FindingClientIO || r.f.Settings[runfmt.SettingWaitMethod] != runfmt.WaitFromLedger {
			out = append(out, r)
			continue
		}
		had := r.f.Figures[runfmt.FigWaitPerRequest]
		left := math.Min(had, math.Max(1000*row-us, 0))
		if !claimable(lt, left/1000) {
			continue
		}
		scaleWait(&r.f, left/max(had, 1e-9))
		r.f.Figures[runfmt.FigShare] = left / 1000 / lt.LatencyMs
		r.rank = left
		out = append(out, r)
	}
	return out
}

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
