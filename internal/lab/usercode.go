package lab

import (
	"os"
	"path/filepath"
	"strconv"

	"perflab/internal/analysis"
)

// scriptExts are the source files whose directory, given as an argument of
// the launched command, is taken as the project root.
var scriptExts = map[string]bool{".py": true, ".rb": true, ".ru": true, ".js": true, ".mjs": true, ".cjs": true, ".ts": true}

// userCode is the run's classifier of user code: --user-code decides
// alone when given; otherwise the project root (--src, else the directory
// of the script the command runs, else the service's working directory)
// decides for interpreted code the default rule would call the user's.
func (s *session) userCode() analysis.UserCode {
	c := &s.cfg
	uc := analysis.UserCode{Match: c.UserCode, Root: c.Src}
	if uc.Root == "" {
		uc.Root = projectRoot(c.Command, c.Dir, s.mainPID())
	}
	return uc
}

func (s *session) mainPID() int {
	if s.proc == nil {
		return 0
	}
	return s.proc.PID()
}

// projectRoot guesses the project's directory: the first script argument's
// directory, the launch directory, or the process's working directory. ""
// when none can be read.
func projectRoot(command []string, dir string, pid int) string {
	for _, a := range command {
		if !scriptExts[filepath.Ext(a)] {
			continue
		}
		p := a
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p)
		}
		if abs, err := filepath.Abs(p); err == nil {
			if _, err := os.Stat(abs); err == nil {
				return filepath.Dir(abs)
			}
		}
	}
	if dir != "" {
		if abs, err := filepath.Abs(dir); err == nil {
			return abs
		}
	}
	if pid > 0 {
		if cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd"); err == nil && cwd != "/" {
			return cwd
		}
	}
	return ""
}
