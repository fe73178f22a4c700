package findings

import (
	"strings"
	"testing"

	"perflab/internal/analysis"
	"perflab/internal/labtest"
	"perflab/internal/prose"
	"perflab/internal/runfmt"
)

// nagleInput is the JDK's HttpServer with Nagle's algorithm on: each
// response's body waits 43 of its 45 ms for the client's delayed ACK,
// on all 8 connections, for 0.1 ms of CPU.
func nagleInput(t *testing.T) FindingInput {
	cpu := labtest.NewProfile(t, "cpu/nanoseconds").
		Add("java.lang.Thread.run;sun.net.httpserver.ServerImpl$Exchange.run;Server.lambda$main$0;Server.price", 3e6).
		Add("java.lang.Thread.run;sun.net.httpserver.ServerImpl$Dispatcher.run;sun.nio.ch.SelectorImpl.select", 1e6).
		Profile()
	network := row(runfmt.PartNetwork, 43)
	network.Socket = &runfmt.LedgerSocket{Ports: []int{8080}, PerRequest: 1, MeanMs: 43, Conns: 8, NagleConns: 8, NagleMs: 43}
	return FindingInput{CPU: cpu, Requests: 40, Runtime: runfmt.RuntimeJVM,
		Target: &runfmt.TargetSummary{CPUCoresMean: 0.02, CPUMsPerRequest: 0.1},
		Load:   &runfmt.LoadResult{RPS: 177, Latency: runfmt.Latency{Mean: 45, P99: 48}},
		Ledger: ledgerOf(45, row(runfmt.PartCPU, 0.1), network)}
}

// nagleGoInput is a Go service whose requests wait 10 of their 12 ms on
// their own connection, 7 of them Nagle's stalls on half the
// connections.
func nagleGoInput(t *testing.T) FindingInput {
	const n = 100
	h := labtest.HandlerStack
	wall := labtest.NewWall(t).
		Add(h, runfmt.WaitCPU, n*2e6).
		Add(h+";main.download;net/http.(*response).Write", runfmt.WaitClient, n*10e6).
		Profile()
	tm := &runfmt.TimePerRequest{Source: runfmt.TimeSourceGoTrace, Seconds: 2, Requests: n, Kinds: analysis.TimeKinds(wall, n, analysis.UserCode{}), TotalMs: 12}
	network := row(runfmt.PartNetwork, 10)
	network.Socket = &runfmt.LedgerSocket{Ports: []int{8080}, PerRequest: 0.5, MeanMs: 20, Conns: 4, NagleConns: 2, NoDelayConns: 2, NagleMs: 7}
	return FindingInput{Wall: wall, Time: tm, Requests: n, Runtime: runfmt.RuntimeGo, Ledger: ledgerOf(12, row(runfmt.PartCPU, 2), network)}
}

// TestNetworkStallNamesTheFix: the stall claims the network row's Nagle
// time with the fix in the terms of the service's server or runtime; a
// client-io wait keeps the rest of the row; with TCP_NODELAY on every
// connection, or too little time held, no stall is said.
func TestNetworkStallNamesTheFix(t *testing.T) {
	fs := Findings(nagleInput(t))
	s := kindOf(t, fs, runfmt.FindingNetworkStall)
	if fs[0].Kind != runfmt.FindingNetworkStall || s.Figures[runfmt.FigWaitPerRequest] != 43000 || s.Advice != runfmt.AdviceNoDelay {
		t.Errorf("findings %q; want first the stall's 43 ms with advice %s", titles(fs), runfmt.AdviceNoDelay)
	}
	w := prose.Wording(&s)
	text := w.Title.Text() + " " + w.Detail.Text()
	for _, want := range []string{"Nagle's algorithm", "delayed ACK", "8 of 8 connections", "-Dsun.net.httpserver.nodelay=true"} {
		if !strings.Contains(text, want) {
			t.Errorf("words %q lack %q", text, want)
		}
	}

	other := nagleInput(t)
	other.CPU = labtest.NewProfile(t, "cpu/nanoseconds").Add("java.lang.Thread.run;io.netty.channel.nio.NioEventLoop.run", 1e6).Profile()
	o := kindOf(t, Findings(other), runfmt.FindingNetworkStall)
	if w := prose.Wording(&o); !strings.Contains(w.Detail.Text(), "Socket.setTcpNoDelay(true)") || strings.Contains(w.Detail.Text(), "httpserver") {
		t.Errorf("a JVM without the JDK's HttpServer: %q; want Socket.setTcpNoDelay(true)", w.Detail.Text())
	}

	g := Findings(nagleGoInput(t))
	gs := kindOf(t, g, runfmt.FindingNetworkStall)
	ci := kindOf(t, g, runfmt.FindingClientIO)
	if gs.Figures[runfmt.FigWaitPerRequest] != 7000 || ci.Figures[runfmt.FigWaitPerRequest] > 3000+1e-6 {
		t.Errorf("stall %v µs, client-io %v µs; want the row's 7 ms of Nagle and at most the 3 ms left", gs.Figures[runfmt.FigWaitPerRequest], ci.Figures[runfmt.FigWaitPerRequest])
	}
	if w := prose.Wording(&gs); !strings.Contains(w.Detail.Text(), "net.TCPConn.SetNoDelay(true)") {
		t.Errorf("a Go service: %q; want net.TCPConn.SetNoDelay(true)", w.Detail.Text())
	}

	for name, edit := range map[string]func(*runfmt.LedgerSocket){
		"TCP_NODELAY on": func(s *runfmt.LedgerSocket) { s.NagleConns, s.NoDelayConns, s.NagleMs = 0, 8, 0 },
		"little held":    func(s *runfmt.LedgerSocket) { s.NagleMs = 0.01 },
	} {
		in := nagleInput(t)
		edit(in.Ledger.Time.Rows[1].Socket)
		for _, f := range Findings(in) {
			if f.Kind == runfmt.FindingNetworkStall {
				t.Errorf("%s: stall %v", name, f.Figures)
			}
		}
	}
}
