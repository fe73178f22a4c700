package runfmt

// PartialKind is why a run stopped early, where perflab knows it:
// run.json's partial_kind, beside partial_note, which quotes the error.
type PartialKind string

// The kinds.
const (
	// PartialInterrupted: Ctrl-C.
	PartialInterrupted PartialKind = "interrupted"
	// PartialExited: the service exited while it was measured.
	PartialExited PartialKind = "service-exited"
	// PartialExitedBeforeReady: the service exited before it answered
	// its readiness probe.
	PartialExitedBeforeReady PartialKind = "exited-before-ready"
	// PartialNotReady: the service did not answer its readiness probe in
	// time.
	PartialNotReady PartialKind = "not-ready"
	// PartialOOMKilled: the kernel's OOM killer killed the service at its
	// memory budget (TargetSummary.OOMKilled).
	PartialOOMKilled PartialKind = "oom-killed"
	// PartialNoRequestFinished: no request finished in the window.
	PartialNoRequestFinished PartialKind = "no-request-finished"
	// PartialNoRequestSucceeded: every request of the window failed.
	PartialNoRequestSucceeded PartialKind = "no-request-succeeded"
	// PartialStuck: the service stopped answering (status stuck; Stuck
	// says where its threads waited).
	PartialStuck PartialKind = "stuck"
	// PartialNotSaved: a file of the run could not be written.
	PartialNotSaved PartialKind = "not-saved"
	// PartialFailed: another error; the note says which.
	PartialFailed PartialKind = "failed"
)

// PartialKinds lists the kinds.
var PartialKinds = newVocabulary("partial kind",
	PartialInterrupted, PartialExited, PartialExitedBeforeReady, PartialNotReady, PartialOOMKilled,
	PartialNoRequestFinished, PartialNoRequestSucceeded, PartialStuck, PartialNotSaved, PartialFailed,
)

// UnmarshalText reads a kind's name, refusing one it does not know.
func (k *PartialKind) UnmarshalText(b []byte) error { return PartialKinds.unmarshal(k, b) }
