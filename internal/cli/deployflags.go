package cli

import (
	"os"
	"regexp"

	"github.com/spf13/pflag"

	"perflab/internal/lab"
)

// deployFlags say how perflab reads a service as it is deployed: what is
// the user's code and whether node gets a perf map. run, ab, sweep and
// profile share them.
type deployFlags struct {
	src       string
	userCode  string
	noPerfMap bool
}

func (d *deployFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&d.src, "src", "", "project root `DIR`: code outside it is not yours when in doubt (default: the launched script's or the service's directory)")
	fs.StringVar(&d.userCode, "user-code", "", "`REGEX` on function names and files that alone decides what is your code (e.g. 'myapp/|^handle_')")
	fs.BoolVar(&d.noPerfMap, "no-perf-map", false, "do not add --perf-basic-prof to a launched service's NODE_OPTIONS (node then shows no JavaScript names)")
}

// apply checks the flags and sets them on c.
func (d *deployFlags) apply(c *lab.Config) error {
	if d.src != "" {
		st, err := os.Stat(d.src)
		if err != nil {
			return usageErr("--src %s: %v", d.src, err)
		}
		if !st.IsDir() {
			return usageErr("--src %s: not a directory", d.src)
		}
		c.Src = d.src
	}
	if d.userCode != "" {
		re, err := regexp.Compile(d.userCode)
		if err != nil {
			return usageErr("--user-code %q: %v", d.userCode, err)
		}
		c.UserCode = re
	}
	c.NoPerfMap = d.noPerfMap
	return nil
}
