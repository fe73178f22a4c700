package revision

import (
	"errors"
	"fmt"
	"strings"
)

// Range is a parsed --git value: which revisions are compared.
type Range struct {
	// Base and New are revisions as written (a branch, tag, commit, HEAD~1).
	// An empty Base is the merge base of New with the default branch; an
	// empty New is HEAD.
	Base, New string
	// MergeBase (BASE...NEW, git's three dots) compares New with the merge
	// base of Base and New instead of Base itself.
	MergeBase bool
}

// ParseRange parses a --git value:
//
//	BASE..NEW    BASE against NEW
//	BASE..       BASE against HEAD
//	BASE...NEW   the merge base of BASE and NEW against NEW
//	NEW, ..NEW   the merge base of NEW with the default branch against NEW
//
// Revisions are checked for what git itself refuses in a name (spaces,
// control characters, a leading '-', which git would read as an option);
// whether they exist is for Resolve to say.
func ParseRange(s string) (Range, error) {
	if strings.TrimSpace(s) == "" {
		return Range{}, errors.New("empty: want BASE..NEW, e.g. main..HEAD (or NEW alone for the merge base with the default branch)")
	}
	var r Range
	var err error
	switch {
	case strings.Contains(s, "..."):
		b, n, _ := strings.Cut(s, "...")
		if b == "" {
			return Range{}, fmt.Errorf("%q: BASE...NEW needs BASE (the merge base of what with NEW?)", s)
		}
		r = Range{Base: b, New: n, MergeBase: true}
	case strings.Contains(s, ".."):
		b, n, _ := strings.Cut(s, "..")
		r = Range{Base: b, New: n}
	default:
		r = Range{New: s}
	}
	for _, rev := range []string{r.Base, r.New} {
		if err = checkRev(rev); err != nil {
			return Range{}, fmt.Errorf("%q: %w", s, err)
		}
	}
	return r, nil
}

// checkRev refuses what cannot be a revision; "" (the default) passes.
func checkRev(rev string) error {
	switch {
	case rev == "":
		return nil
	case strings.HasPrefix(rev, "-"):
		return fmt.Errorf("revision %q starts with '-'", rev)
	case strings.Contains(rev, ".."):
		return fmt.Errorf("revision %q holds \"..\": give one range, BASE..NEW", rev)
	case strings.ContainsAny(rev, " \t\\:?*["):
		return fmt.Errorf("revision %q holds a character git does not allow in a name", rev)
	}
	for _, c := range rev {
		if c < 0x20 || c == 0x7f {
			return fmt.Errorf("revision %q holds a control character", rev)
		}
	}
	return nil
}

// String formats r as ParseRange reads it.
func (r Range) String() string {
	switch {
	case r.MergeBase:
		return r.Base + "..." + r.New
	case r.Base == "":
		return r.New
	}
	return r.Base + ".." + r.New
}
