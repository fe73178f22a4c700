package lab

import "perflab/internal/decide"

// SLO is a service-level objective, e.g. "p99<100ms,errors<1%" (see
// decide.SLO): a run's window is checked against it, and FindMax searches
// the highest rate that meets it.
type SLO = decide.SLO

// ParseSLO parses "p99<100ms,errors<1%".
func ParseSLO(s string) (SLO, error) { return decide.ParseSLO(s) }
