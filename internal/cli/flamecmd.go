package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"perflab/internal/analysis"
)

func newFlameCmd(env Env) *cobra.Command {
	var ref profileRef
	var out string
	var minFrac float64
	cmd := &cobra.Command{
		Use:   "flame PROFILE|RUN -o FILE.html",
		Short: "Write a standalone interactive flame graph of a profile or a run",
		Long: `Write one self-contained HTML file (no network needed) with an interactive
flame graph: click a frame to zoom, search by regexp, hover for its cost and
share. For a RUN (ID, name, path, glob or "latest") the costs are per request.
Your code is coloured warm, the standard library and runtime cool.`,
		Example: `  perflab flame latest -o flame.html
  perflab flame --allocs latest -o allocs.html
  perflab flame profiles/cpu.pb.gz -o cpu.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageErr("-o FILE.html is required")
			}
			r, err := ref.resolve(args[0])
			if err != nil {
				return err
			}
			if _, err := os.Stat(r.path); err != nil {
				return failed(fmt.Errorf("reading profile: %w", err))
			}
			return writeFlameFile(out, func(f *os.File) error {
				return analysis.WriteFlameHTMLFile(f, r.path, analysis.FlameOptions{Title: r.title, SampleIndex: r.sample, Requests: r.requests, MinFraction: minFrac})
			}, env)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&out, "output", "o", "", "write the HTML page to `FILE`")
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
