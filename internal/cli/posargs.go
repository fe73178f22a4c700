package cli

import (
	"strings"

	"github.com/spf13/cobra"
)

// positional is the check of a command's positional arguments, named as
// its usage names them: the names it needs, then "[NAME]" for one it may
// take, and "NAME..." for one that repeats (the last). A missing one is
// said by its name ("missing PROFILE or RUN"), an extra one by what the
// command takes, instead of cobra's "accepts 1 arg(s), received 0".
// positional() takes none.
func positional(names ...string) cobra.PositionalArgs {
	var need []string
	may, repeat := 0, false
	for _, n := range names {
		switch {
		case strings.HasPrefix(n, "["):
			may++
		case strings.HasSuffix(n, "..."):
			repeat = true
			need = append(need, strings.TrimSuffix(n, "..."))
		default:
			need = append(need, n)
		}
	}
	return func(c *cobra.Command, args []string) error {
		if len(args) < len(need) {
			return usageErr("%s: missing %s (see '%s --help')", c.CommandPath(), argWords(need[len(args):]), c.CommandPath())
		}
		if max := len(need) + may; !repeat && len(args) > max {
			extra := args[max]
			if max == 0 {
				return usageErr("%s: unexpected argument %s: it takes no arguments, only flags (see '%s --help')", c.CommandPath(), quoteArg(extra), c.CommandPath())
			}
			return usageErr("%s: unexpected argument %s: it takes %s (see '%s --help')", c.CommandPath(), quoteArg(extra), strings.Join(names, " "), c.CommandPath())
		}
		return nil
	}
}

// argWords names missing arguments: "PROFILE or RUN", "BASE and NEW".
func argWords(names []string) string {
	words := make([]string, len(names))
	for i, n := range names {
		words[i] = strings.ReplaceAll(n, "|", " or ")
	}
	return strings.Join(words, " and ")
}
