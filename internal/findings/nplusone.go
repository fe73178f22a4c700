package findings

import (
	"math"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
)

// nPlusOneMin is the count of queries per request from which they are the
// N+1 shape: a handler's own few queries stay below it.
const nPlusOneMin = 10

// nPlusOneFinding reports requests that make many round trips to a database
// (the ledger's downstream row of a peer it knows for a database server):
// one query per row the first query returned, the N+1 shape. It claims
// that peer's row: the downstream-wait finding gives it up.
func nPlusOneFinding(c *context) []ranked {
	lt := ledgerTime(c.in)
	if lt == nil {
		return nil
	}
	var out []ranked
	for _, r := range lt.Rows {
		p := r.Peer
		ms, measured := r.Ms()
		if r.Part != runfmt.PartDownstream || p == nil || p.Database == "" || p.AnswersPerRequest < nPlusOneMin || !measured {
			continue
		}
		f := runfmt.Finding{Kind: runfmt.FindingNPlusOne, Advice: runfmt.AdviceOneQuery, Figures: runfmt.Figures{
			runfmt.FigQueries: math.Round(p.AnswersPerRequest*10) / 10, runfmt.FigAnswer: 1000 * p.AnswerMs,
			runfmt.FigWaitPerRequest: 1000 * ms, runfmt.FigShare: ms / lt.LatencyMs, runfmt.FigQueriesMin: nPlusOneMin,
		}}
		if p.CPUMsPerRequest != nil {
			f.Figures[runfmt.FigPeerCPU] = 1000 * *p.CPUMsPerRequest
		}
		f.Settings = f.Settings.With(runfmt.SettingDatabase, p.Database).With(runfmt.SettingRuntime, string(c.in.Runtime)).
			With(runfmt.SettingWaitMethod, runfmt.WaitFromLedger)
		f.Evidence.Peers = []string{peerLabel(p)}
		if caller, most, ok := databaseCaller(c.cpu.Costs); ok {
			f.Evidence.Functions = []runfmt.FuncEvidence{caller}
			f.Figures[runfmt.FigDatabaseShare] = c.cpu.Share(most)
		} else if caller, _, ok := databaseCaller(analysis.NewWallCosts(c.in.Wall, c.in.UserCode)); ok {
			// Too few CPU samples under the queries (a short run, a
			// sampler starved on a busy machine): their callers wait
			// for the answers, and that the wall-time profile holds.
			f.Evidence.Functions = []runfmt.FuncEvidence{caller}
		}
		c.found = giveUpRow(c.found, lt, p, 1000*ms)
		out = append(out, ranked{f: f, rank: f.Figures[runfmt.FigWaitPerRequest]})
	}
	return out
}

// peerLabel names a ledger peer: its address and its local process.
func peerLabel(p *runfmt.LedgerPeer) string {
	if p.Name == "" {
		return p.Address
	}
	return p.Address + " (" + p.Name + ")"
}

// databaseCaller is the user function charged the most database client
// work in costs (CPU or wall time), with that work; read from the profile
// itself, so the queries are named even when no CPU finding names their
// caller.
func databaseCaller(costs *analysis.Costs) (runfmt.FuncEvidence, int64, bool) {
	if costs == nil {
		return runfmt.FuncEvidence{}, 0, false
	}
	funcs := costs.Set().Funcs
	best, most := int32(-1), int64(0)
	for f := range funcs {
		if db := costs.Database(int32(f)); db > most || db == most && db > 0 && funcs[f].Name < funcs[best].Name {
			best, most = int32(f), db
		}
	}
	if best < 0 {
		return runfmt.FuncEvidence{}, 0, false
	}
	fn := funcs[best]
	return runfmt.FuncEvidence{Role: runfmt.RoleCulprit, Function: fn.Name, File: fn.File}, most, true
}

// giveUpRow takes a database peer's row, us per request, out of the
// downstream-wait finding that claimed the downstream rows (see
// giveUpTime); the peer leaves its evidence.
func giveUpRow(found []ranked, lt *runfmt.TimeAccount, p *runfmt.LedgerPeer, us float64) []ranked {
	return giveUpTime(found, lt, runfmt.FindingDownstreamWait, runfmt.PartDownstream, us, func(f *runfmt.Finding) {
		var peers []string
		for _, s := range f.Evidence.Peers {
			if !startsWithAddress(s, p.Address) {
				peers = append(peers, s)
			}
		}
		f.Evidence.Peers = peers
	})
}

// startsWithAddress says a peer's words name the address addr.
func startsWithAddress(s, addr string) bool {
	return len(s) > len(addr) && s[:len(addr)] == addr && (s[len(addr)] == ' ' || s[len(addr)] == ':')
}
