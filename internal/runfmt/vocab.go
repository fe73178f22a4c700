package runfmt

import (
	"fmt"
	"slices"
	"strings"
)

// A vocabulary is the set of words run.json and perflab's flags use for
// one concept (profilers, profile types, time sources, kinds of wall
// time, waits, runtimes, finding kinds). Each is a string type declared in
// its own file with its words, each documented there, and one Vocabulary
// value that lists them: List gives them, Parse refuses a word it does not
// know (for flags and user input), and the type's UnmarshalText does the
// same when run.json is read (written, a word is its string, as
// encoding/json writes any string type). The empty word is the zero value
// ("not set", as an omitted field reads): run.json may hold it, Parse
// refuses it. An open vocabulary (Profilers) also reads any word its
// check accepts; its list is the words perflab has.

// Vocabulary is the words of one concept, in their declared order.
type Vocabulary[T ~string] struct {
	name  string // the concept, as an error names it ("ledger part")
	words []T
	index map[T]int
	// open accepts a word outside the list (nil: the vocabulary is closed).
	open func(string) bool
}

// vocabularies are every *Vocabulary of the package, in the order they
// are declared: the tests check each.
var vocabularies []any

// newVocabulary is the vocabulary of the concept name with words, in
// their order; a word listed twice panics.
func newVocabulary[T ~string](name string, words ...T) *Vocabulary[T] {
	v := &Vocabulary[T]{name: name, words: words, index: make(map[T]int, len(words))}
	for i, w := range words {
		if _, dup := v.index[w]; dup {
			panic(fmt.Sprintf("runfmt: %s %q listed twice", name, w))
		}
		v.index[w] = i
	}
	vocabularies = append(vocabularies, v)
	return v
}

// openTo makes v read any word accepted by ok besides its own.
func (v *Vocabulary[T]) openTo(ok func(string) bool) *Vocabulary[T] {
	v.open = ok
	return v
}

// List is the words in their declared order.
func (v *Vocabulary[T]) List() []T { return slices.Clone(v.words) }

// Strings is the words as strings ("rps, p50, ..." in a message).
func (v *Vocabulary[T]) Strings() []string { return Words(v.words) }

// Contains says whether w is one of the words listed.
func (v *Vocabulary[T]) Contains(w T) bool {
	_, ok := v.index[w]
	return ok
}

// Index is w's place among the words (their report order), -1 for a word
// not listed.
func (v *Vocabulary[T]) Index(w T) int {
	if i, ok := v.index[w]; ok {
		return i
	}
	return -1
}

// Parse returns s as one of the words (or, for an open vocabulary, a word
// it accepts), else an *UnknownError that names the vocabulary and its
// words.
func (v *Vocabulary[T]) Parse(s string) (T, error) {
	if w := T(s); v.Contains(w) || v.open != nil && v.open(s) {
		return w, nil
	}
	return "", &UnknownError{Vocabulary: v.name, Word: s, Known: v.Strings()}
}

// unmarshal sets *w from run.json's text as Parse reads it; "" is the
// zero value.
func (v *Vocabulary[T]) unmarshal(w *T, text []byte) error {
	if len(text) == 0 {
		*w = ""
		return nil
	}
	p, err := v.Parse(string(text))
	if err != nil {
		return err
	}
	*w = p
	return nil
}

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

// Words is some words of a vocabulary (a record's causes, a row's
// sources) as strings.
func Words[T ~string](ws []T) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = string(w)
	}
	return out
}
