package runfmt

// Ledger is where a request's time and CPU go, each account adding up to
// what was measured (run.json's "ledger"). The time account splits the
// client's mean latency into exclusive parts, every millisecond owned by
// one part or left unexplained; the CPU account splits the measured CPU per
// request by owner. Each row keeps its figures and its evidence (sites,
// peers, processes, sockets), so findings can be read from the rows alone.
type Ledger struct {
	Time *TimeAccount `json:"time,omitempty"`
	CPU  *CPUAccount  `json:"cpu,omitempty"`
	// Notes are said under the time split: the rows not measured and
	// why (one line when the kernel's timing was unavailable), overlaps
	// between sources and how they were resolved, events the kernel
	// dropped.
	Notes []string `json:"notes,omitempty"`
	// Kernel is the kernel timing session's own figures, when one ran.
	Kernel *KernelTiming `json:"kernel,omitempty"`
}

// TimeAccount is the client-measured mean latency split into parts: the
// rows' milliseconds plus UnexplainedMs make LatencyMs.
type TimeAccount struct {
	// LatencyMs is the mean latency the load client measured, P99Ms its
	// 99th percentile (the split is of the mean).
	LatencyMs float64 `json:"latency_ms"`
	P99Ms     float64 `json:"p99_ms,omitempty"`
	// Requests is how many requests the figures are per.
	Requests int64 `json:"requests"`
	// Rows are the parts in report order (runfmt.LedgerParts), one per
	// downstream peer; a part not measured has no milliseconds and says
	// why.
	Rows []LedgerRow `json:"rows"`
	// UnexplainedMs is LatencyMs less the measured rows, at least 0;
	// ExplainedPct is the rows' share of LatencyMs.
	UnexplainedMs float64 `json:"unexplained_ms"`
	ExplainedPct  float64 `json:"explained_pct"`
}

// LedgerRow is one part of the time account.
type LedgerRow struct {
	Part LedgerPart `json:"part"`
	// MsPerRequest is the part's time per request; nil when the part was
	// not measured (never 0 for that), NotMeasured then says why.
	MsPerRequest *float64 `json:"ms_per_request,omitempty"`
	NotMeasured  string   `json:"not_measured_note,omitempty"`
	// Sources measured the figure.
	Sources []LedgerSource `json:"sources,omitempty"`
	// Note says how the figure was made when it is more than one source's
	// reading: an overlap taken out, a cap, a split.
	Note string `json:"note,omitempty"`
	// Waits splits the row by the precise wait, in ms per request, when
	// its source tells them apart (a Go trace's lock, channel, cond...).
	Waits map[Wait]float64 `json:"waits,omitempty"`
	// Sites are the user functions where the part's time is spent, most
	// first, in ms per request of that source.
	Sites []TimeSite `json:"sites,omitempty"`
	// Peer is the peer of a downstream row.
	Peer *LedgerPeer `json:"peer,omitempty"`
	// Socket is the service's side of the sockets an accept, queue or
	// network row was measured at.
	Socket *LedgerSocket `json:"socket,omitempty"`
	// Processes are, for the runnable row, the other processes that used
	// the machine's CPUs in the window, most first.
	Processes []ProcessCPU `json:"processes,omitempty"`
}

// Ms returns the row's milliseconds per request and whether it was
// measured.
func (r LedgerRow) Ms() (float64, bool) {
	if r.MsPerRequest == nil {
		return 0, false
	}
	return *r.MsPerRequest, true
}

// LedgerPeer is a peer the service called: where it is, the process
// behind it when it runs on this machine, and its time to answer.
type LedgerPeer struct {
	// Address is the peer's IP address and port.
	Address string `json:"address"`
	// PID and Name are the local process listening at Address, when
	// there is one.
	PID  int    `json:"pid,omitempty"`
	Name string `json:"name,omitempty"`
	// Database is the database server the peer is (postgres, mysql,
	// redis, mongodb, memcached), told from its process's name or its
	// port: its answers are then the service's queries.
	Database string `json:"database,omitempty"`
	// AnswersPerRequest is how many answers the kernel timed per request
	// of the load; AnswerMs their mean time, from the service's last
	// bytes sent to the answer's first bytes arriving.
	AnswersPerRequest float64 `json:"answers_per_request"`
	AnswerMs          float64 `json:"answer_ms"`
	// AnswersNotCounted says why AnswersPerRequest and AnswerMs are 0
	// though the peer answered: its calls overlapped on a connection.
	AnswersNotCounted string `json:"answers_not_counted,omitempty"`
	// ReadDelayMs is, per request, how long the answers waited to be read
	// once they had arrived: the service's own delay, charged to its own
	// parts, not to the peer.
	ReadDelayMs float64 `json:"read_delay_ms"`
	// CPUMsPerRequest is the local peer's CPU time over the window (from
	// /proc) per request of this load; nil when not measured, and
	// CPUNotMeasured says why.
	CPUMsPerRequest *float64 `json:"cpu_ms_per_request,omitempty"`
	CPUNotMeasured  string   `json:"cpu_not_measured_note,omitempty"`
}

// LedgerSocket is the service's listening ports a row was measured at and
// what its sockets did.
type LedgerSocket struct {
	Ports []int `json:"ports"`
	// PerRequest is the row's intervals per request (waits to be
	// accepted, to be read; send stalls), MeanMs their mean length.
	PerRequest float64 `json:"per_request"`
	MeanMs     float64 `json:"mean_ms"`
	// Conns are the connections that sent; NagleConns had Nagle's
	// algorithm on at their first send (TCP_NODELAY off), NoDelayConns
	// TCP_NODELAY on. Set on the network row.
	Conns        uint64 `json:"conns,omitempty"`
	NagleConns   uint64 `json:"nagle_conns,omitempty"`
	NoDelayConns uint64 `json:"nodelay_conns,omitempty"`
	// NagleMs is the row's time per request held by Nagle's algorithm
	// (the stalls on the connections with it on), in ms.
	NagleMs float64 `json:"nagle_ms,omitempty"`
}

// CPUAccount is the measured CPU per request split by owner: the profile's
// shares applied to the CPU it stands for (at most the measured CPU), and
// the rest unexplained. The owners' milliseconds plus UnexplainedMs make
// MeasuredMs.
type CPUAccount struct {
	// MeasuredMs is the service's CPU per request, from Source (cgroup-v1,
	// cgroup-v2 or proc).
	MeasuredMs float64 `json:"measured_ms"`
	Source     string  `json:"source"`
	// ProfiledMs is the CPU the profile's samples stand for, per request;
	// nil without a profile, and NotProfiled says why.
	ProfiledMs  *float64 `json:"profiled_ms,omitempty"`
	NotProfiled string   `json:"not_profiled_note,omitempty"`
	// Scale is (MeasuredMs - UnsampledStartMs) / ProfiledMs: what a
	// function's sampled CPU is multiplied by to be a share of the
	// measured CPU.
	Scale float64 `json:"scale,omitempty"`
	// UnsampledStartMs is the start-up of workers started during the
	// window before they were sampled (Profiling.UnsampledStartCPUSeconds)
	// per request: measured, in no sample.
	UnsampledStartMs float64 `json:"unsampled_start_ms,omitempty"`
	// Owners split the profiled CPU (at most MeasuredMs less
	// UnsampledStartMs) by owner.
	Owners []CPUShare `json:"owners,omitempty"`
	// UnexplainedMs is MeasuredMs less UnsampledStartMs and the owners'
	// milliseconds.
	UnexplainedMs float64 `json:"unexplained_ms"`
	// Note says how the figures were made when the profile stands for
	// more CPU than was measured (a sampler counting waits as CPU).
	Note string `json:"note,omitempty"`
}

// SampledMs is the measured CPU per request a profile could sample: the
// measured less the start-up of workers before they were sampled.
func (a *CPUAccount) SampledMs() float64 { return max(a.MeasuredMs-a.UnsampledStartMs, 0) }

// UnsampledStartMs is the CPU account's UnsampledStartMs; 0 without a
// ledger or a CPU account.
func (l *Ledger) UnsampledStartMs() float64 {
	if l == nil || l.CPU == nil {
		return 0
	}
	return l.CPU.UnsampledStartMs
}

// CPUShare is one owner's CPU per request.
type CPUShare struct {
	Owner        CPUOwner `json:"owner"`
	MsPerRequest float64  `json:"ms_per_request"`
	// Pct is its share of the measured CPU.
	Pct float64 `json:"pct"`
}

// KernelTiming is what the kernel timing session (eBPF) covered and cost.
type KernelTiming struct {
	// Unavailable says why no session ran; the other fields are then
	// empty.
	Unavailable string `json:"unavailable_note,omitempty"`
	// Processes counts the service's processes measured; Ports are the
	// load's listening ports whose connections were timed.
	Processes int   `json:"processes,omitempty"`
	Ports     []int `json:"ports,omitempty"`
	// ProgramCPUSeconds is the kernel programs' own CPU time in the
	// window, Overhead that over the service's CPU: the kernel counts it
	// for ProgramCPUCounted of the window (a share: its counting adds to
	// every run), and it is scaled to the whole window.
	ProgramCPUSeconds float64 `json:"program_cpu_s,omitempty"`
	Overhead          float64 `json:"overhead,omitempty"`
	ProgramCPUCounted float64 `json:"program_cpu_counted,omitempty"`
	// Programs are each kernel program's runs and CPU in the window,
	// scaled alike.
	Programs []KernelProgram `json:"programs,omitempty"`
	// Unmeasured names, per measure the kernel did not take, why.
	Unmeasured map[string]string `json:"unmeasured_notes,omitempty"`
	// Dropped counts, per kernel table, the records lost in the window
	// because it was full; absent when nothing was lost.
	Dropped map[string]uint64 `json:"dropped,omitempty"`
}

// Row returns the first row of part p, or nil.
func (t *TimeAccount) Row(p LedgerPart) *LedgerRow {
	if t == nil {
		return nil
	}
	for i := range t.Rows {
		if t.Rows[i].Part == p {
			return &t.Rows[i]
		}
	}
	return nil
}

// KernelProgram is one kernel program's runs and CPU time in the window,
// as the kernel counts them.
type KernelProgram struct {
	Name       string  `json:"name"`
	Runs       uint64  `json:"runs"`
	CPUSeconds float64 `json:"cpu_s"`
	NsPerRun   float64 `json:"ns_per_run"`
}
