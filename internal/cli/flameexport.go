package cli

import (
	"fmt"
	"io"

	"perflab/internal/files"
	"perflab/internal/profview"
)

// exportFlame writes e as collapsed stacks or speedscope JSON, to path or,
// when path is "", to stdout.
func exportFlame(env Env, format *formatFlag, path string, e *profview.Export) error {
	v := views{formatCollapsed: e.WriteCollapsed, formatSpeedscope: e.WriteSpeedscope}
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
