package findings

import (
	"math"
	"strings"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// networkStallFinding reports responses held in the kernel by Nagle's
// algorithm, from the ledger's network row: the service writes a
// response in more than one send (headers, then body) on a connection
// with TCP_NODELAY off, so a send waits until the client acknowledges the
// one before, and the client delays that acknowledgement (up to 40 ms on
// Linux). It claims the row's Nagle time: a client-io finding keeps only
// the rest. Its advice turns Nagle off in the terms of the service's
// runtime, or of its server when that has a setting of its own (the JDK's
// HttpServer).
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
	return giveUpTime(found, lt, runfmt.FindingClientIO, runfmt.PartNetwork, us, nil)
}

// giveUpTime takes us per request out of the ledger-based wait finding of
// kind that claimed the rows of part (at most their sum): it keeps at most
// the rows' sum less us, is dropped when what is left is too little to
// claim, and is handed to also, when given, before it is kept.
func giveUpTime(found []ranked, lt *runfmt.TimeAccount, kind runfmt.FindingKind, part runfmt.LedgerPart, us float64, also func(*runfmt.Finding)) []ranked {
	rows, _ := rowsMs(lt, part)
	out := found[:0]
	for _, r := range found {
		if r.f.Kind != kind || r.f.Settings[runfmt.SettingWaitMethod] != runfmt.WaitFromLedger {
			out = append(out, r)
			continue
		}
		had := r.f.Figures[runfmt.FigWaitPerRequest]
		left := math.Min(had, math.Max(1000*rows-us, 0))
		if !claimable(lt, left/1000) {
			continue
		}
		scaleWait(&r.f, left/max(had, 1e-9))
		r.f.Figures[runfmt.FigShare] = left / 1000 / lt.LatencyMs
		if also != nil {
			also(&r.f)
		}
		r.rank = left
		out = append(out, r)
	}
	return out
}
