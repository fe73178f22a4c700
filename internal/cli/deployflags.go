package cli

import (
	"os"
	"path/filepath"
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
	cgroup    string
}

func (d *deployFlags) register(fs *pflag.FlagSet) {
	v := flagSet{fs}
	v.checked(&d.src, "src", "", "", "dir", checkDir, "project root `DIR`: code outside it is not yours when in doubt (default: the launched script's or the service's directory)")
	v.checked(&d.userCode, "user-code", "", "", "REGEX", checkRegexp, "`REGEX` on function names and files that alone decides what is your code (e.g. 'myapp/|^handle_')")
	v.checked(&d.cgroup, "cgroup", "", "", "path", nonEmpty, "attach to every process of an existing cgroup `PATH` (a systemd unit's or container's, v1 or v2: /sys/fs/cgroup/... or /system.slice/web.service)")
	fs.BoolVar(&d.noPerfMap, "no-perf-map", false, "do not add --perf-basic-prof-only-functions to a launched service's NODE_OPTIONS (node then shows no JavaScript names) nor -XX:+PreserveFramePointer to its JAVA_TOOL_OPTIONS (perf then sees no callers of compiled Java methods)")
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
	if d.cgroup != "" {
		switch {
		case c.PID != 0 || len(c.Command) > 0:
			return usageErr("give one of --cgroup, --pid and -- CMD")
		case c.Budget.CPUs > 0 || c.Budget.MemoryBytes > 0:
			return usageErr("--cpus and --memory apply to a service perflab launches (-- CMD), not to --cgroup")
		}
		if err := lab.CheckCgroup(d.cgroup); err != nil {
			return usageErr("--cgroup: %v", err)
		}
		c.Cgroup = d.cgroup
		if c.ReadyURL == "" && len(c.Load.Targets) > 0 {
			c.ReadyURL = c.Load.Targets[0].URL.String()
		}
		if c.Name == "run" || c.Name == "profile" {
			c.Name += "-" + filepath.Base(d.cgroup)
		}
	}
	if c.PID > 0 {
		// A pid that cannot be a service is bad input, said before anything runs.
		if err := lab.CheckPID(c.PID); err != nil {
			return usageErr("--%v", err)
		}
	}
	return nil
}
