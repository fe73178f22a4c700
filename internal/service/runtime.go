package service

import (
	"bufio"
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"perflab/internal/runfmt"
)

// ProcessInfo is what a process is: its executable, command line and
// the language runtime it runs, read from /proc.
type ProcessInfo struct {
	PID  int
	PPID int
	// Exe is the executable behind /proc/PID/exe.
	Exe string
	// Cmdline is the command line, arguments joined by spaces (at most
	// 200 bytes).
	Cmdline string
	// Runtime is what it runs.
	Runtime runfmt.Runtime
	// PerfMap says /tmp/perf-PID.map exists: a JIT (node
	// --perf-basic-prof, a JVM agent, python -X perf) names its code for perf.
	PerfMap bool
}

// Errors of DetectRuntime, for errors.Is.
var (
	ErrKernelThread = errors.New("is a kernel thread, not a service's process")
	ErrZombie       = errors.New("is a zombie: it has exited and its parent has not reaped it")
	ErrNoProcess    = errors.New("no such process")
	ErrNoPermission = errors.New("not permitted to read it (run perflab as root or as the process's user)")
)

// pfKthread is PF_KTHREAD in /proc/PID/stat's flags (field 9).
const pfKthread = 0x00200000

// maxMapsBytes bounds how much of /proc/PID/maps is read (a JVM maps
// thousands of regions; the runtime's libraries come early).
const maxMapsBytes = 4 << 20

// DetectRuntime tells what pid runs from what it is, not from its
// command's name: a pyenv shim, gunicorn, puma or `sh -c` wrapper says
// nothing, its executable and mapped libraries do. libpython, libruby,
// libnode and libjvm in /proc/PID/maps, then the executable's name
// (python3.11, ruby, node, java), then a Go build ID or buildinfo section
// in its ELF file; anything else is native.
func DetectRuntime(pid int) (ProcessInfo, error) {
	info := ProcessInfo{PID: pid}
	dir := "/proc/" + strconv.Itoa(pid)
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return info, fmt.Errorf("pid %d: %w", pid, ErrNoProcess)
		}
		return info, fmt.Errorf("pid %d: %w", pid, err)
	}
	state, flags, ppid, parsed := statFlags(stat)
	if parsed {
		info.PPID = ppid
		switch {
		case flags&pfKthread != 0:
			return info, fmt.Errorf("pid %d %w", pid, ErrKernelThread)
		case state == 'Z' || state == 'X':
			return info, fmt.Errorf("pid %d %w", pid, ErrZombie)
		}
	}
	exe, err := os.Readlink(dir + "/exe")
	switch {
	case errors.Is(err, fs.ErrPermission):
		return info, fmt.Errorf("pid %d: %w", pid, ErrNoPermission)
	case errors.Is(err, fs.ErrNotExist):
		if _, serr := os.Stat(dir); serr != nil {
			return info, fmt.Errorf("pid %d: %w", pid, ErrNoProcess)
		}
		if parsed {
			// Not a kernel thread (its flags say so), and its memory is
			// gone: it is exiting, between its last instruction and the
			// zombie state its stat read a moment ago did not show yet.
			return info, fmt.Errorf("pid %d %w", pid, ErrZombie)
		}
		return info, fmt.Errorf("pid %d %w", pid, ErrKernelThread) // no executable: a kernel thread or a zombie
	case err != nil:
		return info, fmt.Errorf("pid %d: reading its executable: %w", pid, err)
	}
	info.Exe = exePath(exe)
	info.Cmdline = readCmdline(dir + "/cmdline")
	_, err = os.Stat("/tmp/perf-" + strconv.Itoa(pid) + ".map")
	info.PerfMap = err == nil
	info.Runtime = runtimeFromMaps(dir + "/maps")
	if info.Runtime == "" {
		info.Runtime = runtimeFromExe(info.Exe, dir+"/exe")
	}
	return info, nil
}

// statFlags returns the state (field 3), flags (field 9) and parent pid
// (field 4) of a /proc/PID/stat line.
func statFlags(b []byte) (state byte, flags uint64, ppid int, ok bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, 0, false
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3
	if len(f) < 7 || f[0] == "" {
		return 0, 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	flags, err := strconv.ParseUint(f[6], 10, 64)
	return f[0][0], flags, ppid, err == nil
}

func readCmdline(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 200))
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

// runtimeLibs are shared libraries that say which runtime a process runs
// (an interpreter built with --enable-shared, node linked to libnode, every
// JVM).
var runtimeLibs = []struct {
	prefix  string
	runtime runfmt.Runtime
}{
	{"libpython", runfmt.RuntimePython}, {"libruby", runfmt.RuntimeRuby},
	{"libnode", runfmt.RuntimeNode}, {"libjvm", runfmt.RuntimeJVM},
}

func runtimeFromMaps(path string) runfmt.Runtime {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, maxMapsBytes))
	for sc.Scan() {
		line := sc.Bytes()
		slash := bytes.IndexByte(line, '/')
		if slash < 0 {
			continue
		}
		base := filepath.Base(string(line[slash:]))
		for _, l := range runtimeLibs {
			if strings.HasPrefix(base, l.prefix) && strings.Contains(base, ".so") {
				return l.runtime
			}
		}
	}
	return ""
}

// runtimeFromExe tells the runtime from the executable's name, then from
// its ELF file (read through /proc/PID/exe, which works for a deleted or
// replaced binary).
func runtimeFromExe(exe, procExe string) runfmt.Runtime {
	if rt := RuntimeOfName(exe); rt != "" {
		return rt
	}
	if isGoBinary(procExe) {
		return runfmt.RuntimeGo
	}
	return runfmt.RuntimeNative
}

// RuntimeOfName tells the runtime an interpreter's executable runs from
// its name alone (python3.11, pypy, ruby, node, java); "" for any other
// name, which only its file can tell.
func RuntimeOfName(exe string) runfmt.Runtime {
	base := filepath.Base(exe)
	switch {
	case strings.HasPrefix(base, "python") || strings.HasPrefix(base, "pypy"):
		return runfmt.RuntimePython
	case strings.HasPrefix(base, "ruby"):
		return runfmt.RuntimeRuby
	case base == "node" || base == "nodejs" || base == "bun" || base == "deno":
		return runfmt.RuntimeNode
	case base == "java":
		return runfmt.RuntimeJVM
	}
	return ""
}

// isGoBinary says whether the ELF file carries Go's build information or
// build ID (every binary the go command links has them).
func isGoBinary(path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return f.Section(".go.buildinfo") != nil || f.Section(".note.go.buildid") != nil
}

// ProcessCPUSeconds is the CPU time (user + system) pid has used so far.
func ProcessCPUSeconds(pid int) (float64, error) {
	st, err := readProcStat(pid)
	return st.cpuSeconds(), err
}

// ProcessTimes is what /proc/PID/stat says of a process's life so far.
type ProcessTimes struct {
	// Started is when it started, at or before the true start: the
	// kernel keeps it in clock ticks (10 ms).
	Started time.Time
	// CPUSeconds is the CPU (user + system) it has used.
	CPUSeconds float64
}

// ReadProcessTimes reads pid's start and CPU from /proc.
func ReadProcessTimes(pid int) (ProcessTimes, error) {
	st, err := readProcStat(pid)
	if err != nil {
		return ProcessTimes{}, err
	}
	boot, err := sinceBoot()
	if err != nil {
		return ProcessTimes{}, err
	}
	// The start is truncated to its tick and the time since boot is
	// exact, so the age is at least the true age.
	age := boot - time.Duration(st.StartTime)*(time.Second/userHZ)
	return ProcessTimes{Started: time.Now().Add(-age), CPUSeconds: st.cpuSeconds()}, nil
}

// ExeOf is the executable pid runs, as DetectRuntime names it.
func ExeOf(pid int) (string, error) {
	exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	if err != nil {
		return "", err
	}
	return exePath(exe), nil
}

// exePath is the path of a /proc/PID/exe link's target, without the mark
// of a file deleted since it was run.
func exePath(link string) string {
	return strings.TrimSuffix(link, " (deleted)")
}

// readProcStat reads and parses /proc/PID/stat.
func readProcStat(pid int) (procStat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	return parseProcStat(b)
}
