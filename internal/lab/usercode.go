package lab

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"perflab/internal/analysis"
	"perflab/internal/ownership"
)

// scriptExts are the source files whose directory, given as an argument of
// the launched command, is taken as the project root.
var scriptExts = map[string]bool{".py": true, ".rb": true, ".ru": true, ".js": true, ".mjs": true, ".cjs": true, ".ts": true}

// userCode is the run's classifier of user code, its ownership model
// decided once (decideOwnership): --user-code decides alone when given;
// otherwise the processes' executables (Go build information, crates,
// symbols) and the project root (--src, else the directory of the script
// the command runs, else the service's working directory) decide.
func (s *session) userCode() analysis.UserCode {
	if s.owners == nil {
		s.decideOwnership()
	}
	return analysis.UserCode{Model: s.owners}
}

// decideOwnership decides the run's ownership model from the service's
// processes while they run; called again, it keeps the first.
func (s *session) decideOwnership() {
	if s.owners != nil {
		return
	}
	c := &s.cfg
	in := ownership.Inputs{PIDs: s.pids, Root: c.Src}
	if c.UserCode != nil {
		in.UserCode = c.UserCode.String()
	}
	if in.Root == "" {
		in.Root = projectRoot(c.Command, c.Dir, s.mainPID())
	}
	m, err := ownership.Detect(in)
	if err != nil {
		// --user-code was compiled when parsed: this cannot happen.
		m, _ = ownership.New(ownership.Spec{Root: in.Root})
	}
	s.owners = m
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

// userCode is the batch program's ownership model: from its executable
// (the command as the shell would find it), the executables its CPU
// profile names, and the project root, decided when it has exited.
func (b *batch) userCode() analysis.UserCode {
	if b.owners == nil {
		b.owners = b.detectOwnership()
	}
	return analysis.UserCode{Model: b.owners}
}

// detectOwnership decides the batch program's ownership model.
func (b *batch) detectOwnership() *ownership.Model {
	c := &b.cfg
	in := ownership.Inputs{Root: c.Src}
	if c.UserCode != nil {
		in.UserCode = c.UserCode.String()
	}
	if in.Root == "" {
		in.Root = projectRoot(c.Command, c.Dir, 0)
	}
	if len(c.Command) > 0 {
		if exe, err := exec.LookPath(c.Command[0]); err == nil {
			in.Executables = append(in.Executables, exe)
		}
	}
	if b.cpu != nil {
		in.Executables = append(in.Executables, ownership.ProfileBinaries(b.cpu)...)
	}
	m, err := ownership.Detect(in)
	if err != nil {
		m, _ = ownership.New(ownership.Spec{Root: in.Root})
	}
	return m
}
