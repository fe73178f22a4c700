package capture

import (
	"io"

	"github.com/google/pprof/profile"
)

// ParsePerfScript parses perf script output with no perf map (see
// parsePerfScript).
func ParsePerfScript(r io.Reader) (*profile.Profile, error) {
	return parsePerfScript(r, nil, nil)
}
