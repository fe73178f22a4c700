package runfmt

import (
	"fmt"
	"slices"
	"strings"
)

// A vocabulary is a closed set of words run.json and perflab's flags use
// for one concept (profilers, profile types, time sources, kinds of wall
// time, waits, runtimes, finding kinds). Each is a string type declared in
// its own file with its words, each documented there: X() lists them,
// ParseX refuses a word it does not know (for flags and user input), and
// UnmarshalText does the same when run.json is read (written, a word is its
// string, as encoding/json writes any string type). The empty word is the
// zero value ("not set", as an omitted field reads): run.json may hold it,
// ParseX refuses it.

// UnknownError is a word its vocabulary does not know.
type UnknownError struct {
	// Vocabulary names the concept ("finding kind").
	Vocabulary string
	Word       string
	// Known are the vocabulary's words, in their declared order.
	Known []string
}

func (e *UnknownError) Error() string {
	return fmt.Sprintf("unknown %s %q (known: %s)", e.Vocabulary, e.Word, strings.Join(e.Known, ", "))
}

// Words is a vocabulary's words as strings ("rps, p50, ..." in a message).
func Words[T ~string](ws []T) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = string(w)
	}
	return out
}

// parseWord returns s as one of the words known, or an *UnknownError that
// names the vocabulary.
func parseWord[T ~string](vocabulary string, known []T, s string) (T, error) {
	if w := T(s); slices.Contains(known, w) {
		return w, nil
	}
	return "", &UnknownError{Vocabulary: vocabulary, Word: s, Known: Words(known)}
}

// unmarshalWord sets *w from run.json's text with parse; "" is the zero
// value.
func unmarshalWord[T ~string](w *T, text []byte, parse func(string) (T, error)) error {
	if len(text) == 0 {
		*w = ""
		return nil
	}
	p, err := parse(string(text))
	if err != nil {
		return err
	}
	*w = p
	return nil
}
