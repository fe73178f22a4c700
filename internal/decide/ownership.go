package decide

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"perflab/internal/analysis"
	"perflab/internal/ownership"
	"perflab/internal/service"
)

// scriptExts are the source files whose directory, given as an argument of
// the launched command, is taken as the project root.
var scriptExts = map[string]bool{".py": true, ".rb": true, ".ru": true, ".js": true, ".mjs": true, ".cjs": true, ".ts": true}

// userCode is the run's classifier of user code, its ownership model
// decided once (Ownership, unless the run decided it already).
func (d *decider) userCode() analysis.UserCode {
	if d.in.Owners == nil {
		d.in.Owners = Ownership(d.in.PIDs, d.cfg)
	}
	return analysis.UserCode{Model: d.in.Owners}
}

// Ownership decides a service's ownership model from its processes pids
// while they run: --user-code decides alone when given; otherwise the
// processes' executables (Go build information, crates, symbols) and
// the project root (--src, else the directory of the script the command
// runs, else the service's working directory) decide.
func Ownership(pids []int, c Settings) *ownership.Model {
	in := ownership.Inputs{PIDs: pids, Root: c.Src}
	if c.UserCode != nil {
		in.UserCode = c.UserCode.String()
	}
	if in.Root == "" {
		in.Root, in.RootFrom = ProjectRoot(c.Command, c.Dir, pids)
	}
	m, err := ownership.Detect(in)
	if err != nil {
		// --user-code was compiled when parsed: this cannot happen.
		m, _ = ownership.New(ownership.Spec{Root: in.Root})
	}
	return m
}

// ProjectRoot guesses the project's directory and says where it came
// from: the directory of the first script the command names (an argument,
// or a word of one, as in sh -c "exec python3 app.py"), else of the first
// script a service process runs (its command line, read from /proc, for a
// launcher perflab cannot read into), else the launch directory, else the
// first process's working directory. "" when none can be read.
func ProjectRoot(command []string, dir string, pids []int) (string, string) {
	if root := scriptDir(command, dir); root != "" {
		return root, "the directory of the script the command runs"
	}
	for _, pid := range pids {
		args, err := service.Cmdline(pid)
		if err != nil {
			continue
		}
		cwd, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
		if root := scriptDir(args, cwd); root != "" {
			return root, fmt.Sprintf("the directory of the script pid %d runs", pid)
		}
	}
	if dir != "" {
		if abs, err := filepath.Abs(dir); err == nil {
			return abs, "the directory the service was launched in"
		}
	}
	if len(pids) > 0 {
		if cwd, err := os.Readlink("/proc/" + strconv.Itoa(pids[0]) + "/cwd"); err == nil && cwd != "/" {
			return cwd, fmt.Sprintf("working directory of pid %d", pids[0])
		}
	}
	return "", ""
}

// scriptDir returns the directory of the first existing script among args
// and their words (relative ones taken from dir), or "".
func scriptDir(args []string, dir string) string {
	for _, arg := range args {
		for _, a := range strings.Fields(arg) {
			if !scriptExts[filepath.Ext(a)] {
				continue
			}
			p := a
			if !filepath.IsAbs(p) && dir != "" {
				p = filepath.Join(dir, p)
			}
			if abs, err := filepath.Abs(p); err == nil {
				if st, err := os.Stat(abs); err == nil && st.Mode().IsRegular() {
					return filepath.Dir(abs)
				}
			}
		}
	}
	return ""
}
