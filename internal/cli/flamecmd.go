package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"perflab/internal/analysis"
	"perflab/internal/capture"
	"perflab/internal/files"
	"perflab/internal/runfmt"
	"perflab/internal/stacks"
)

func newFlameCmd(env Env) *cobra.Command {
	var ref profileRef
	var out string
	var minFrac float64
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "flame PROFILE|RUN -o FILE.html | flame --format collapsed|speedscope PROFILE|RUN [-o FILE]",
		Short: "Write a standalone interactive flame graph of a profile or a run",
		Long: `Write one self-contained HTML file (no network needed) with an interactive
flame graph: click a frame to zoom, search by regexp, hover for its cost and
share. For a RUN (ID, name, path, glob or "latest") the costs are per request.
Your code is coloured warm, the standard library and runtime cool.

--format collapsed writes Brendan Gregg's folded stacks ("root;caller;leaf
VALUE", for flamegraph.pl, inferno and speedscope) and --format speedscope
speedscope's JSON, of the profile's values (CPU nanoseconds, bytes), to -o or
stdout.`,
		Example: `  perflab flame latest -o flame.html
  perflab flame --allocs latest -o allocs.html
  perflab flame profiles/cpu.pb.gz -o cpu.html
  perflab flame --format collapsed latest | flamegraph.pl > cpu.svg
  perflab flame --format speedscope latest -o cpu.speedscope.json`,
		Args: positional("PROFILE|RUN"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" && format.is(formatHTML) {
				return usageErr("-o FILE.html is required")
			}
			r, err := ref.resolve(args[0])
			if err != nil {
				return err
			}
			p := r.prof // a profile perflab derived (a wall-time view), else the file
			if !format.is(formatHTML) {
				if p == nil {
					data, err := files.ReadFile(r.path, runfmt.MaxProfileBytes)
					if err != nil {
						return usageErr("reading profile: %v", err)
					}
					if p, err = capture.Decode(data); err != nil {
						return usageErr("reading profile %s: %v", r.path, err)
					}
				}
				return exportFlame(env, format, out, p, r)
			}
			opt := analysis.FlameOptions{Title: r.title, SampleIndex: r.sample, Requests: r.requests, Scale: r.scale, MinFraction: minFrac, UserCode: r.userCode}
			write := func(w io.Writer) error { return analysis.WriteFlameHTML(w, p, opt) }
			if p == nil {
				// The page reads the file with the lean decoder: a large
				// profile costs little more to draw than to list with top.
				ff, err := analysis.ReadFlameFile(r.path)
				if err != nil {
					return usageErr("%v", err)
				}
				write = func(w io.Writer) error { return ff.WriteHTML(w, opt) }
			}
			if err := files.WriteAtomic(out, write); err != nil {
				if errors.Is(err, stacks.ErrNoSampleType) {
					return usageErr("%v", err)
				}
				return failed(err)
			}
			fmt.Fprintf(env.Stderr, "perflab: wrote %s\n", out)
			return nil
		},
	}
	fs := cmd.Flags()
	v := flagSet{fs}
	v.checked(&out, "output", "o", "", "file", outputFile, "write the HTML page (or the export) to `FILE`")
	format = addFormatFlag(cmd, "", formatHTML, formatCollapsed, formatSpeedscope)
	v.float(&minFrac, "min-fraction", "", 0, -1, 1, "fold frames below this `fraction` of the total into their parent, from -1 to 1 (0: 0.0005; negative: keep all)")
	ref.register(fs)
	return cmd
}
