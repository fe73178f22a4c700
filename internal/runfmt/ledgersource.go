package runfmt

// LedgerSource is what measured a row of the ledger (run.json's
// ledger.time.rows[].sources): a time source, or one of the measurements
// every run takes.
type LedgerSource string

// The sources.
const (
	// LedgerGoTrace is the Go execution trace (see TimeSourceGoTrace).
	LedgerGoTrace = LedgerSource(TimeSourceGoTrace)
	// LedgerPySpy and LedgerRbSpy are the wall-clock samplers' idle
	// stacks of the request threads.
	LedgerPySpy = LedgerSource(TimeSourcePySpy)
	LedgerRbSpy = LedgerSource(TimeSourceRbSpy)
	// LedgerPerfSched is perf's recording of the scheduler's events.
	LedgerPerfSched = LedgerSource(TimeSourcePerfSched)
	// LedgerKernel is perflab's kernel programs (eBPF): the scheduler's
	// and the TCP sockets' timing of the service's processes.
	LedgerKernel LedgerSource = "kernel"
	// LedgerCgroup is the service's cgroup: its CPU time and throttling.
	LedgerCgroup LedgerSource = "cgroup"
	// LedgerProc is /proc: processes' CPU time and run-queue waits
	// (/proc/PID/stat and schedstat).
	LedgerProc LedgerSource = "proc"
	// LedgerLoadClient is perflab's load generator: latency, send lag,
	// the phases of each request.
	LedgerLoadClient LedgerSource = "load-client"
)

// LedgerSources lists the sources.
var LedgerSources = newVocabulary("ledger source", LedgerGoTrace, LedgerPySpy, LedgerRbSpy, LedgerPerfSched, LedgerKernel, LedgerCgroup, LedgerProc, LedgerLoadClient)

// UnmarshalText reads a source's name, refusing one it does not know.
func (s *LedgerSource) UnmarshalText(b []byte) error { return LedgerSources.unmarshal(s, b) }
