package analysis

import "github.com/google/pprof/profile"

// Top computes the top table of p (the product reads files: TopFile).
func Top(p *profile.Profile, opt TopOptions) (*Table, error) {
	return topOf(fromProfile(p), opt)
}
