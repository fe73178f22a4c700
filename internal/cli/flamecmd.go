package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"perflab/internal/analysis"
	"perflab/internal/capture"
)

func newFlameCmd(env Env) *cobra.Command {
	var ref profileRef
	var out string
	var minFrac float64
	var format string
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
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch format {
			case flameHTML, flameCollapsed, flameSpeedscope:
			default:
				return usageErr("--format %q: want html, collapsed or speedscope", format)
			}
			if out == "" && format == flameHTML {
				return usageErr("-o FILE.html is required")
			}
			r, err := ref.resolve(args[0])
			if err != nil {
				return err
			}
			p := r.prof // a profile perflab derived (a wall-time view), else the file
			if format != flameHTML {
				if p == nil {
					data, err := os.ReadFile(r.path)
					if err != nil {
						return failed(fmt.Errorf("reading profile: %w", err))
					}
					if p, err = capture.Decode(data); err != nil {
						return failed(fmt.Errorf("reading profile %s: %w", r.path, err))
					}
				}
				return exportFlame(env, format, out, p, r)
			}
			opt := analysis.FlameOptions{Title: r.title, SampleIndex: r.sample, Requests: r.requests, MinFraction: minFrac, UserCode: r.userCode}
			if p != nil {
				return writeFlameFile(out, func(f *os.File) error { return analysis.WriteFlameHTML(f, p, opt) }, env)
			}
			if _, err := os.Stat(r.path); err != nil {
				return failed(fmt.Errorf("reading profile: %w", err))
			}
			// The page reads the file with the lean decoder: a large
			// profile costs little more to draw than to list with top.
			return writeFlameFile(out, func(f *os.File) error { return analysis.WriteFlameHTMLFile(f, r.path, opt) }, env)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&out, "output", "o", "", "write the HTML page (or the export) to `FILE`")
	fs.StringVar(&format, "format", flameHTML, "html (an interactive page), collapsed (folded stacks) or speedscope (JSON)")
	fs.Float64Var(&minFrac, "min-fraction", 0, "fold frames below this `fraction` of the total into their parent (0: 0.0005; negative: keep all)")
	ref.register(fs)
	return cmd
}

// writeFlameFile writes path with write, removing it on failure.
func writeFlameFile(path string, write func(*os.File) error, env Env) error {
	f, err := os.Create(path)
	if err != nil {
		return failed(fmt.Errorf("creating %s: %w", path, err))
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return failed(fmt.Errorf("writing %s: %w", path, err))
	}
	fmt.Fprintf(env.Stderr, "perflab: wrote %s\n", path)
	return nil
}
