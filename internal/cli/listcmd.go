package cli

import (
	"io"
	"regexp"

	"github.com/spf13/cobra"

	"perflab/internal/profview"
)

func newListCmd(env Env) *cobra.Command {
	var ref profileRef
	var opt profview.ListOptions
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "list REGEX [RUN|PROFILE]",
		Short: "Show the cost of every source line of the functions matching REGEX (pprof's list)",
		Long: `Print every line of the functions whose names match REGEX with its flat cost
(samples stopped on that line) and cumulative cost (that line and what it
called), as 'go tool pprof -list' does; for a RUN (ID, name, path, glob or
"latest", the default) per request too. The source is read from disk: at the
path the profile records, else under each --source-path directory. Lines
marked "!" were sampled but no longer lie in the function in the source read
(it changed since the build). Under each function come the lines of the
functions it calls that cost most. Python, Ruby and node profiles from py-spy,
rbspy and V8's profiler carry line numbers; perf's do not (the listing then
shows functions).`,
		Example: `  perflab list logRequest
  perflab list 'main\.(*server)\.search' latest
  perflab list --source-path ~/src/api handleItem profiles/cpu.pb.gz
  perflab list Mash latest`,
		Args: positional("REGEX", "[RUN|PROFILE]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opt.Callees < 0 {
				return usageErr("--callees %d: must be >= 0", opt.Callees)
			}
			if args[0] == "" {
				return usageErr("REGEX \"\": empty: give (part of) a function's name, e.g. perflab list handleItem")
			}
			if _, err := regexp.Compile(args[0]); err != nil {
				return usageErr("REGEX %q: %v", args[0], err)
			}
			arg := "latest"
			if len(args) == 2 {
				arg = args[1]
			}
			src, err := ref.resolve(arg)
			if err != nil {
				return err
			}
			l, err := src.List(args[0], opt)
			if err != nil {
				return viewErr(err) // the profile the user named is not one, or has no such function
			}
			err = format.write(env.Stdout, views{formatText: l.WriteText, formatJSON: func(w io.Writer) error { return writeJSON(w, l.Record()) }})
			if err != nil {
				return failed(err)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	format = addFormatFlag(cmd, "print the listing as JSON (each function's lines with flat and cum, its calls and costliest callee lines)", formatText, formatJSON)
	flagSet{fs}.int(&opt.Callees, "callees", "", 10, 0, 1000, "show the `N` costliest lines of the functions each one calls (0: none)")
	fs.StringSliceVar(&opt.SourcePath, "source-path", nil, "look for source files under these `directories` too (comma-separated or repeated)")
	ref.register(fs)
	return cmd
}
