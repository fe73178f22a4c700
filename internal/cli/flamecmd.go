package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"perflab/internal/files"
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
			src, err := ref.resolve(args[0])
			if err != nil {
				return err
			}
			if !format.is(formatHTML) {
				e, err := src.Export("perflab " + Version)
				if err != nil {
					return viewErr(err)
				}
				return exportFlame(env, format, out, e)
			}
			f, err := src.Flame(minFrac)
			if err != nil {
				return viewErr(err)
			}
			if err := files.WriteAtomic(out, f.WriteHTML); err != nil {
				return viewErr(err) // --sample the profile lacks, or the output failed
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
