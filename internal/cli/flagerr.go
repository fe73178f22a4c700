package cli

import (
	"errors"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagError is the root's answer to a flag it cannot parse, given the
// command line (args) it was called with: a bad value names the flag, the
// value and the range; an unknown flag that follows the service's command
// is that command's own, and the error shows the line with the -- it
// lacked.
func flagError(args []string) func(*cobra.Command, error) error {
	return func(c *cobra.Command, err error) error {
		var bad *pflag.InvalidValueError
		if errors.As(err, &bad) {
			// "--concurrency 0: must be from 1 to 100000"
			return usageErr("--%s %s: %v (see '%s --help')", bad.GetFlag().Name, quoteArg(bad.GetValue()), errors.Unwrap(bad), c.CommandPath())
		}
		var unknown *pflag.NotExistError
		if errors.As(err, &unknown) {
			if fixed, cmd, ok := withDashDash(c, args, unknown); ok {
				return usageErr("%s: %v: it follows %s, whose own flags go after --: %s", c.CommandPath(), err, quoteArg(cmd), fixed)
			}
		}
		return usageErr("%s: %v (see '%s --help')", c.CommandPath(), err, c.CommandPath())
	}
}

// withDashDash finds the service's command among the arguments parsed
// before the unknown flag (the first that is not a URL, when no -- came
// before it, for a command that takes -- CMD) and returns the command line
// with -- put before it.
func withDashDash(c *cobra.Command, args []string, unknown *pflag.NotExistError) (fixed, cmd string, ok bool) {
	if !strings.Contains(c.Use, "-- CMD") || c.Flags().ArgsLenAtDash() >= 0 {
		return "", "", false
	}
	for _, a := range c.Flags().Args() {
		if !strings.Contains(a, "://") {
			cmd = a
			break
		}
	}
	at := unknownFlagAt(args, unknown)
	if cmd == "" || at < 0 || slices.Contains(args[:at], "--") {
		return "", "", false
	}
	// The command is the last argument equal to it before the flag: an
	// earlier one may be a flag's value.
	i := slices.Index(args[:at], cmd)
	for j := i + 1; j < at; j++ {
		if args[j] == cmd {
			i = j
		}
	}
	if i < 0 {
		return "", "", false
	}
	line := append([]string{"perflab"}, args[:i]...)
	line = append(line, "--")
	line = append(line, args[i:]...)
	for k, a := range line {
		line[k] = quoteArg(a)
	}
	return strings.Join(line, " "), cmd, true
}

// unknownFlagAt is the index in args of the argument that held the
// unknown flag (-addr, --port=8080), or -1.
func unknownFlagAt(args []string, unknown *pflag.NotExistError) int {
	want := "--" + unknown.GetSpecifiedName()
	if short := unknown.GetSpecifiedShortnames(); short != "" {
		want = "-" + short
	}
	return slices.IndexFunc(args, func(a string) bool {
		return a == want || strings.HasPrefix(a, want+"=")
	})
}
