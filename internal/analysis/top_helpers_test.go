package analysis

import (
	"io"

	"github.com/google/pprof/profile"
)

// Top computes the top table of p (the product reads files: TopFile).
func Top(p *profile.Profile, opt TopOptions) (*Table, error) {
	if opt.Lines {
		return topOf(fromProfileLines(p), opt)
	}
	return topOf(fromProfile(p), opt)
}

// List lists the functions of p whose names match the regexp pattern.
func List(p *profile.Profile, pattern string, opt ListOptions) (*Listing, error) {
	return listOf(fromProfileLines(p), pattern, opt)
}

// readStackSet decodes an encoded profile (gzipped or not) from r.
func readStackSet(r io.Reader) (*stackSet, error) { return readStackSetAs(r, false) }
