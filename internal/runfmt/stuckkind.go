package runfmt

import "slices"

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

var stuckKindWords = []StuckKind{StuckNoRequestFinished, StuckWindowEnded}

// StuckKinds lists the kinds.
func StuckKinds() []StuckKind { return slices.Clone(stuckKindWords) }

// ParseStuckKind returns the kind named s, or an error naming s and the
// kinds.
func ParseStuckKind(s string) (StuckKind, error) {
	return parseWord("stuck kind", StuckKinds(), s)
}

// String is the kind's name.
func (k StuckKind) String() string { return string(k) }

// UnmarshalText reads a kind's name, refusing one it does not know.
func (k *StuckKind) UnmarshalText(b []byte) error { return unmarshalWord(k, b, ParseStuckKind) }
