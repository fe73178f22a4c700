package profview

import (
	"errors"
	"fmt"
)

// ErrInput is matched (errors.Is) by an error in what the user named:
// the file or run, a flag's value, a sample type the profile lacks.
var ErrInput = errors.New("bad input")

// inputError is an error of the user's input: its message is err's, and
// it matches both err and ErrInput.
type inputError struct{ err error }

func (e *inputError) Error() string   { return e.err.Error() }
func (e *inputError) Unwrap() []error { return []error{e.err, ErrInput} }

func inputErr(format string, args ...any) error {
	return &inputError{err: fmt.Errorf(format, args...)}
}

// asInput marks err, when not nil, as the user's input.
func asInput(err error) error {
	if err == nil {
		return nil
	}
	return &inputError{err: err}
}
