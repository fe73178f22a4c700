package analysis

import (
	"io"

	"github.com/google/pprof/profile"
)

// List lists the functions of p whose names match the regexp pattern.
func List(p *profile.Profile, pattern string, opt ListOptions) (*Listing, error) {
	return listOf(fromProfileLines(p), pattern, opt)
}

// readStackSet decodes an encoded profile (gzipped or not) from r.
func readStackSet(r io.Reader) (*stackSet, error) { return readStackSetAs(r, false) }
