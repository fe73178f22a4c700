package cli

import (
	"fmt"
	"io"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/files"
)

// Formats of perflab flame.
const (
	flameHTML       = "html"
	flameCollapsed  = "collapsed"
	flameSpeedscope = "speedscope"
)

// exportFlame writes p as collapsed stacks or speedscope JSON, to path or,
// when path is "", to stdout.
func exportFlame(env Env, format, path string, p *profile.Profile, r resolved) error {
	opt := analysis.ExportOptions{SampleIndex: r.sample, Name: r.title, Exporter: "perflab " + Version}
	write := func(w io.Writer) error {
		if format == flameSpeedscope {
			return analysis.WriteSpeedscope(w, p, opt)
		}
		return analysis.WriteCollapsed(w, p, opt)
	}
	if path == "" {
		if err := write(env.Stdout); err != nil {
			return failed(err)
		}
		return nil
	}
	if err := files.WriteAtomic(path, write); err != nil {
		return failed(err)
	}
	fmt.Fprintf(env.Stderr, "perflab: wrote %s\n", path)
	return nil
}
