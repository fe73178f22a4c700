package analysis

import (
	"perflab/internal/ownership"
)

// UserCode decides which frames belong to code the user can change. It is
// the run's ownership model (ownership.Model: the user's code, a
// dependency's, the standard library's, the runtime's), decided once per
// run and kept in run.json, so that top tables, findings, flame graphs and
// the walk to the frame that owns a cost all classify alike. The zero
// value applies the model's default rules with nothing known.
type UserCode struct {
	// Model is the run's ownership model; nil applies the default rules.
	Model *ownership.Model
}

// defaultModel is the Model with nothing known: the default rules.
var defaultModel = &ownership.Model{}

// NewUserCode makes the classifier of a run with nothing detected: its
// --user-code pattern (decides alone when given) and its project root
// (decides when the language's rules are in doubt). The only error is an
// invalid pattern.
func NewUserCode(pattern, root string) (UserCode, error) {
	m, err := ownership.New(ownership.Spec{UserCode: pattern, Root: root})
	return UserCode{Model: m}, err
}

// model returns u's model, the default one when u has none.
func (u UserCode) model() *ownership.Model {
	if u.Model == nil {
		return defaultModel
	}
	return u.Model
}

// Class tells whose code the frame named name, defined in file (may be
// empty; a binary when the profile has no lines), is.
func (u UserCode) Class(name, file string) ownership.Class {
	return u.model().Classify(ownership.Frame{Func: name, File: file})
}

// IsUser reports whether the frame named name, defined in file (may be
// empty), is user code under u.
func (u UserCode) IsUser(name, file string) bool {
	return u.Class(name, file).Kind == ownership.User
}

// IsUserFunc is the default user-code rule: the ownership model's with
// nothing known (see ownership.Classify). The Go standard library and
// runtime, libc, interpreters and VMs, the standard libraries of Python
// and Ruby, and dependencies (Go modules in the module cache, site-packages,
// gems, node_modules) are not user code.
func IsUserFunc(name, file string) bool {
	return UserCode{}.IsUser(name, file)
}
