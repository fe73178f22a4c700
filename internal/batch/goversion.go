package batch

import (
	"debug/buildinfo"
	"fmt"
	"go/version"
	"os/exec"
	"path/filepath"
	"strings"
)

// goVersion is the Go version a command's program was built with, "" when
// it is not a Go binary (or cannot be read).
func goVersion(command []string, dir string) string {
	if len(command) == 0 {
		return ""
	}
	prog := command[0]
	if strings.Contains(prog, "/") && !filepath.IsAbs(prog) && dir != "" {
		prog = filepath.Join(dir, prog)
	}
	path, err := exec.LookPath(prog)
	if err != nil {
		return ""
	}
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return ""
	}
	return info.GoVersion
}

// goVersionAtLeast says whether a Go version ("go1.26.1") is at least
// major.minor.
func goVersionAtLeast(v string, major, minor int) bool {
	return version.Compare(version.Lang(v), fmt.Sprintf("go%d.%d", major, minor)) >= 0
}
