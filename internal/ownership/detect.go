package ownership

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"

	"perflab/internal/prose"
	"perflab/internal/units"
)

// Inputs are what Detect decides a run's Model from.
type Inputs struct {
	// PIDs are the service's processes: each one's executable is read
	// (through /proc/PID/exe, so a replaced or deleted file is still the
	// one running), and the first one's working directory is the project
	// root when Root is not given.
	PIDs []int
	// Executables are more binaries to read (a profile's mappings).
	Executables []string
	// Root is the project's directory: --src, or the caller's guess.
	Root string
	// RootFrom says where the caller's guess of Root came from; "" when
	// Root is --src.
	RootFrom string
	// UserCode is --user-code.
	UserCode string
	// Runtime is the service's runtime as perflab detected it (a Lang*
	// constant); "" to tell it from the executables.
	Runtime string
}

// Detect decides the ownership model of a run: it reads each process's
// executable (Go build information, symbols, DWARF compile units, frame
// pointers; bounded reads), and under the project root go.mod, Cargo.lock
// and Cargo.toml, and the package declarations of JVM sources. What
// cannot be read is said in the Spec's notes. The only error is an
// invalid UserCode pattern.
func Detect(in Inputs) (*Model, error) {
	if in.UserCode != "" {
		if _, err := regexp.Compile(in.UserCode); err != nil {
			return nil, fmt.Errorf("--user-code %q: %w", in.UserCode, err)
		}
	}
	s := Spec{Runtime: in.Runtime, UserCode: in.UserCode}
	s.Root, s.RootFrom = detectRoot(in)
	seen := map[string]bool{}
	add := func(read, name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		b, mods, err := InspectBinary(read)
		b.Path = name
		if err != nil {
			b.Err = err.Error()
			s.Notes = append(s.Notes, fmt.Sprintf("could not read %s: %v", name, err))
		}
		s.Binaries = append(s.Binaries, b)
		s.Modules = append(s.Modules, mods...)
	}
	for _, pid := range in.PIDs {
		dir := "/proc/" + strconv.Itoa(pid)
		exe, err := os.Readlink(dir + "/exe")
		if err != nil {
			s.Notes = append(s.Notes, fmt.Sprintf("pid %d: could not read its executable: %v", pid, err))
			continue
		}
		add(dir+"/exe", strings.TrimSuffix(exe, " (deleted)"))
	}
	for _, e := range in.Executables {
		add(e, e)
	}
	if s.Root != "" {
		s.Modules = append(s.Modules, rootModules(s.Root)...)
		s.JVMPackages = jvmPackages(s.Root)
	}
	if s.Runtime == "" {
		s.Runtime = guessRuntime(s.Binaries)
	}
	s.Notes = append(s.Notes, binaryNotes(s.Binaries)...)
	return New(s)
}

// ProfileBinaries lists the executables and libraries p's mappings name
// that exist as files, for Inputs.Executables when a profile is all there
// is (a profile file, a pprof endpoint): the kernel, a JIT's perf map and
// the vdso are left out.
func ProfileBinaries(p *profile.Profile) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range p.Mapping {
		f := m.File
		if f == "" || seen[f] || !path.IsAbs(f) || isPerfMap(f) || isKernel(f) {
			continue
		}
		seen[f] = true
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			out = append(out, f)
		}
	}
	return out
}

// detectRoot returns the project root and where it came from: --src, else
// the first process's working directory (unless it is "/").
func detectRoot(in Inputs) (string, string) {
	if in.Root != "" {
		from := in.RootFrom
		if from == "" {
			from = "--src"
		}
		if abs, err := filepath.Abs(in.Root); err == nil {
			return abs, from
		}
		return in.Root, from
	}
	if len(in.PIDs) > 0 {
		cwd, err := os.Readlink("/proc/" + strconv.Itoa(in.PIDs[0]) + "/cwd")
		if err == nil && cwd != "/" && path.IsAbs(cwd) {
			return strings.TrimSuffix(cwd, " (deleted)"), fmt.Sprintf("working directory of pid %d", in.PIDs[0])
		}
	}
	return "", ""
}

// guessRuntime tells the service's runtime from its first executable.
func guessRuntime(bins []Binary) string {
	for _, b := range bins {
		base := path.Base(b.Path)
		switch {
		case pythonExe.MatchString(base):
			return LangPython
		case rubyExe.MatchString(base):
			return LangRuby
		case isNodeExe(base):
			return LangNode
		case base == "java":
			return LangJVM
		case b.Lang != "":
			return b.Lang
		}
	}
	return ""
}

// binaryNotes says, once per binary, what it lacks for perflab to name
// its code and walk its stacks, with the rebuild to do.
func binaryNotes(bins []Binary) []string {
	var out []string
	for _, b := range bins {
		if b.Lang == "" || b.Lang == LangGo || isRuntimeExe(path.Base(b.Path)) {
			continue
		}
		switch {
		case !b.Symbols && !b.DebugInfo:
			out = append(out, fmt.Sprintf("%s has neither symbols nor debug information: its costs can only be reported per module; %s", b.Path, prose.NamingRemedy(b.Lang)))
		case b.FramePointers == FramePointersNo:
			out = append(out, fmt.Sprintf("%s appears to be built without frame pointers (%s of its functions set one up; a heuristic): perf's stacks may stop before your code; %s", b.Path, units.FormatPct(100*b.FramePointerShare), prose.UnwindRemedy(b.Lang)))
		}
	}
	return out
}
