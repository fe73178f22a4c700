package runfmt

// Verdict statuses.
const (
	// VerdictPass: no --fail-on rule (or --slo objective) was violated and
	// the measurement can be trusted.
	VerdictPass = "pass"
	// VerdictFail: a --fail-on rule or an --slo objective was violated, or
	// the run could not be done.
	VerdictFail = "fail"
	// VerdictWarn: nothing failed, but the measurement cannot settle it (a
	// noisy machine, too few runs, a degraded run).
	VerdictWarn = "warn"
)

// Verdict is the answer of a comparison or a run in one status, with the
// reasons behind it.
type Verdict struct {
	Status string `json:"status"`
	// Reasons say why, most important first: the rules violated, what
	// made the measurement uncertain.
	Reasons []string `json:"reasons"`
}
