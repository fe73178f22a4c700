package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"perflab/internal/files"
)

// Version is perflab's version, set at build time with -ldflags.
var Version = "0.1.0-dev"

// Main runs perflab with args and returns the exit code. Cancelling ctx (on
// Ctrl-C or SIGTERM) stops the current command, which still writes what it
// measured.
func Main(ctx context.Context, args []string, env Env) int {
	// What a perflab killed with SIGKILL left in the temporary directory
	// (perf's data, a profiler's stacks) goes now.
	files.RemoveStale()
	root := newRoot(env)
	args = withGoTestFlags(args)
	root.SetArgs(args)
	root.SetFlagErrorFunc(flagError(args))
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	err := root.ExecuteContext(ctx)
	var se *silentExit
	if err != nil && !errors.As(err, &se) {
		fmt.Fprintf(env.Stderr, "perflab: %s\n", oneLine(err.Error()))
	}
	return int(codeOf(ctx, err))
}

// quoteArg quotes a value for a message when it is empty or holds spaces
// or quotes.
func quoteArg(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\n\"'") {
		return strconv.Quote(s)
	}
	return s
}

func oneLine(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ")
}

func newRoot(env Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "perflab",
		Short: "A performance lab for HTTP services in one command",
		Long: `perflab starts (or attaches to) a service, confines it to a CPU and memory
budget, drives a precise load at it, profiles it while it works, and tells what
one request costs and where that cost goes; then it tells whether a change made
it better, with statistics.`,
		Version:       Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Every command's --format is checked here, once its flags are
		// parsed and before it does anything, and its --dir set to the
		// user's store when it was not given.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := defaultStore(cmd, env); err != nil {
				return err
			}
			return resolveFormat(cmd)
		},
	}
	root.SetFlagErrorFunc(flagError(nil))
	root.AddCommand(newLoadCmd(env), newMergeCmd(env), newRunCmd(env), newRunsCmd(env), newShowCmd(env), newDemoCmd(env), newDemoServiceCmd(env), newProfileCmd(env), newTopCmd(env), newListCmd(env), newFlameCmd(env), newCompareCmd(env), newABCmd(env), newSweepCmd(env), newUICmd(env))
	root.AddCommand(newBenchCmd(env))
	return root
}
