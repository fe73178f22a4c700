package cli

import (
	"fmt"
	"io"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/files"
)

// exportFlame writes p as collapsed stacks or speedscope JSON, to path or,
// when path is "", to stdout.
func exportFlame(env Env, format *formatFlag, path string, p *profile.Profile, r resolved) error {
	opt := analysis.ExportOptions{SampleIndex: r.sample, Name: r.title, Exporter: "perflab " + Version}
	v := views{
		formatCollapsed:  func(w io.Writer) error { return analysis.WriteCollapsed(w, p, opt) },
		formatSpeedscope: func(w io.Writer) error { return analysis.WriteSpeedscope(w, p, opt) },
	}
	if path == "" {
		if err := format.write(env.Stdout, v); err != nil {
			return failed(err)
		}
		return nil
	}
	if err := files.WriteAtomic(path, func(w io.Writer) error { return format.write(w, v) }); err != nil {
		return failed(err)
	}
	fmt.Fprintf(env.Stderr, "perflab: wrote %s\n", path)
	return nil
}
