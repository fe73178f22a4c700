package session

import (
	"perflab/internal/analysis"
	"perflab/internal/decide"
)

// userCode is the run's classifier of user code, its ownership model
// decided once (decideOwnership).
func (s *Session) userCode() analysis.UserCode {
	if s.owners == nil {
		s.decideOwnership()
	}
	return analysis.UserCode{Model: s.owners}
}

// decideOwnership decides the run's ownership model from the service's
// processes while they run; called again, it keeps the first.
func (s *Session) decideOwnership() {
	if s.owners == nil {
		s.owners = decide.Ownership(s.pids, s.settings())
	}
}
