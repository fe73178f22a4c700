package runfmt

// StuckKind is what made perflab read every thread's stack: run.json's
// stuck.kind.
type StuckKind string

// The kinds.
const (
	// StuckNoRequestFinished: no request finished for Stuck.StalledS
	// seconds while Stuck.InFlight were in flight.
	StuckNoRequestFinished StuckKind = "no-request-finished"
	// StuckWindowEnded: the window ended with Stuck.InFlight requests
	// unfinished and Stuck.Finished finished.
	StuckWindowEnded StuckKind = "window-ended-unfinished"
)

// StuckKinds lists the kinds.
var StuckKinds = newVocabulary("stuck kind", StuckNoRequestFinished, StuckWindowEnded)

// UnmarshalText reads a kind's name, refusing one it does not know.
func (k *StuckKind) UnmarshalText(b []byte) error { return StuckKinds.unmarshal(k, b) }
