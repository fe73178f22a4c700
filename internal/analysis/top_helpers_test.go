package analysis

import (
	"io"

	"github.com/google/pprof/profile"

	"perflab/internal/stacks"
)

// List lists the functions of p whose names match the regexp pattern.
func List(p *profile.Profile, pattern string, opt ListOptions) (*Listing, error) {
	return listOf(stacks.FromProfileLines(p), pattern, opt)
}

// readStackSet decodes an encoded profile (gzipped or not) from r.
func readStackSet(r io.Reader) (*stacks.Set, error) { return stacks.Read(r, false) }
