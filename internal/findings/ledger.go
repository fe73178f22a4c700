package findings

import (
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// The time findings read the run's request ledger when it has one: each
// claims its own row's time per request and no more, so two findings
// never count one millisecond and a finding's figure is the ledger's.

// claimShare is the least share of the mean latency a row must hold for a
// finding to claim it.
const claimShare = waitMinShare

// ledgerTime is the ledger's time account, nil without one.
func ledgerTime(in FindingInput) *runfmt.TimeAccount {
	if in.Ledger == nil || in.Ledger.Time == nil || in.Ledger.Time.LatencyMs <= 0 {
		return nil
	}
	return in.Ledger.Time
}

// rowsMs sums the measured rows of parts ps (every downstream peer's row
// for PartDownstream); ok is false when none of them was measured.
func rowsMs(t *runfmt.TimeAccount, ps ...runfmt.LedgerPart) (ms float64, ok bool) {
	if t == nil {
		return 0, false
	}
	for _, r := range t.Rows {
		for _, p := range ps {
			if r.Part != p {
				continue
			}
			if v, measured := r.Ms(); measured {
				ms, ok = ms+v, true
			}
		}
	}
	return ms, ok
}

// claimable says ms per request is worth a finding of its own: at least
// waitMinMs and claimShare of the mean latency.
func claimable(t *runfmt.TimeAccount, ms float64) bool {
	return ms >= waitMinMs && ms >= claimShare*t.LatencyMs
}

// waitParts are the ledger rows each wait finding claims.
var waitParts = map[runfmt.FindingKind][]runfmt.LedgerPart{
	runfmt.FindingDownstreamWait: {runfmt.PartDownstream},
	runfmt.FindingLockContention: {runfmt.PartLock},
	runfmt.FindingSyncWait:       {runfmt.PartLock},
	runfmt.FindingPoolWait:       {runfmt.PartPool},
	runfmt.FindingSleep:          {runfmt.PartSleep},
	runfmt.FindingSyscallWait:    {runfmt.PartSyscall},
	runfmt.FindingClientIO:       {runfmt.PartNetwork},
	runfmt.FindingGCPause:        {runfmt.PartGC},
}

// claimRows makes the wait findings claim their rows: the findings that
// share a row split its time in proportion to what the wall-time profile
// gave each, a finding whose row holds too little is dropped, and a
// downstream finding names the peers' rows. A finding whose row was not
// measured keeps its wall-time figure.
func claimRows(found []ranked, in FindingInput) []ranked {
	t := ledgerTime(in)
	if t == nil {
		return found
	}
	asked := map[runfmt.LedgerPart]float64{}
	for _, r := range found {
		if ps := waitParts[r.f.Kind]; len(ps) > 0 {
			asked[ps[0]] += r.f.Figures[runfmt.FigWaitPerRequest]
		}
	}
	var out []ranked
	for _, r := range found {
		ps := waitParts[r.f.Kind]
		row, measured := rowsMs(t, ps...)
		if len(ps) == 0 || !measured {
			out = append(out, r)
			continue
		}
		us := r.f.Figures[runfmt.FigWaitPerRequest]
		claim := min(us, 1000*row*us/max(asked[ps[0]], 1e-9))
		if !claimable(t, claim/1000) {
			continue
		}
		scaleWait(&r.f, claim/max(us, 1e-9))
		r.f.Figures[runfmt.FigShare] = claim / 1000 / t.LatencyMs
		r.f.Settings = r.f.Settings.With(runfmt.SettingWaitMethod, runfmt.WaitFromLedger)
		if r.f.Kind == runfmt.FindingDownstreamWait {
			r.f.Evidence.Peers = ledgerPeers(t)
		}
		r.rank = claim
		out = append(out, r)
	}
	return out
}

// scaleWait scales a wait finding's times, and its sites', by k.
func scaleWait(f *runfmt.Finding, k float64) {
	for _, fig := range []runfmt.Figure{runfmt.FigWaitPerRequest, runfmt.FigBlocked, runfmt.FigRunnable} {
		if v, ok := f.Figures[fig]; ok {
			f.Figures[fig] = v * k
		}
	}
	for i := range f.Evidence.Functions {
		if v, ok := f.Evidence.Functions[i].Figures[runfmt.FigWaitPerRequest]; ok {
			f.Evidence.Functions[i].Figures[runfmt.FigWaitPerRequest] = v * k
		}
	}
}

// ledgerPeers are the downstream rows' peers, as the finding names them:
// the address, the local process behind it, the answer time per request.
func ledgerPeers(t *runfmt.TimeAccount) []string {
	var out []string
	for _, r := range t.Rows {
		if r.Part != runfmt.PartDownstream || r.Peer == nil {
			continue
		}
		ms, _ := r.Ms()
		out = append(out, peerLabel(r.Peer)+": "+units.FormatMicros(1000*ms)+"/request answering")
	}
	return out
}

// atCPUBudget says the service ran at its CPU budget: at least atBudget
// of its quota's cores on average, throttled or not (without a quota, the
// CPU-bound verdict of the whole host).
func atCPUBudget(in FindingInput) bool {
	t := in.Target
	switch {
	case t == nil:
		return false
	case t.CPULimitCores > 0:
		return t.CPUCoresMean >= atBudget*t.CPULimitCores
	}
	return t.CPUBound
}

// atBudget is the share of its quota from which a service's queueing is
// behind its own CPU.
const atBudget = 0.95
