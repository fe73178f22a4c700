package cli

import (
	"io"
	"math"

	"github.com/spf13/cobra"

	"perflab/internal/profview"
)

func newTopCmd(env Env) *cobra.Command {
	var ref profileRef
	var opt profview.TopOptions
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "top PROFILE|RUN",
		Short: "Print a pprof-style top table of a profile or a run (flat/cum, user code, per request)",
		Long: `Print the functions of a profile ranked by flat (or --cum) cost, like
'go tool pprof -top'. PROFILE is a pprof file (.pb.gz or not); RUN is a stored
run (ID, name, path, glob or "latest"), whose CPU profile is read and divided by
its request count for the per-request columns. --user lists only your code,
each function charged with the standard-library and runtime work it called.
--lines makes each row a source line (pprof's -lines), when the profile has
line numbers.

Where it differs from 'go tool pprof -top' on purpose: a sample that landed in
the runtime's asynchronous preemption handler (runtime.asyncPreempt) is
charged to the function it interrupted, whose cost it is, so asyncPreempt
never appears as a hot function; and Python and Ruby functions are told apart
by file (two classes' __init__ are two rows, named with their file).`,
		Example: `  perflab top latest
  perflab top --user -n 10 latest
  perflab top --cum profiles/cpu.pb.gz
  perflab top --allocs --user latest
  perflab top --lines -n 15 latest`,
		Args: positional("PROFILE|RUN"),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := ref.resolve(args[0])
			if err != nil {
				return err
			}
			t, err := src.Top(opt)
			if err != nil {
				return viewErr(err) // the profile or --sample the user named
			}
			err = format.write(env.Stdout, views{formatText: t.WriteText, formatJSON: func(w io.Writer) error { return writeJSON(w, t.Record()) }})
			if err != nil {
				return failed(err)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	format = addFormatFlag(cmd, "print the table as JSON (rows with flat, cum, shares and per-request costs)", formatText, formatJSON)
	fs.BoolVar(&opt.Cum, "cum", false, "sort by cumulative cost (the function and what it calls)")
	fs.BoolVar(&opt.User, "user", false, "only user code, each function charged with the library and runtime code it calls")
	v := flagSet{fs}
	v.int(&opt.N, "nodes", "n", 20, 0, math.MaxInt, "show the top `N` functions (0: all)")
	v.checked(&opt.Focus, "focus", "", "", "REGEX", checkRegexp, "keep only stacks with a function matching this `regexp`")
	fs.BoolVar(&opt.Lines, "lines", false, "one row per source line (file:line) instead of per function")
	ref.register(fs)
	return cmd
}
