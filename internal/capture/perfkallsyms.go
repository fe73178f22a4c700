package capture

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"perflab/internal/files"
)

// perf record reads the kernel's symbol table, /proc/kallsyms (120,000
// lines or more), three times over as it starts, only to find where the
// kernel's text begins and ends for the kernel's map in its data: 0.2 s
// of system time for every recording, however short (0.02 s without
// them). perflab runs it in a mount namespace of its own where
// /proc/kallsyms is a file of just those symbols; perf script, later,
// reads the real table to name the kernel's frames.

// kernelBoundSymbols are the symbols perf record looks up in
// /proc/kallsyms: the kernel's text start (_text or _stext) and end.
var kernelBoundSymbols = []string{"_text", "_stext", "_etext"}

// errMissingKernelBounds is a symbol table without the kernel's bounds.
var errMissingKernelBounds = errors.New("/proc/kallsyms does not name the kernel text's bounds")

// maxKallsyms bounds the read of /proc/kallsyms.
const maxKallsyms = 64 << 20

var kallsymsOnce struct {
	sync.Once
	file   string
	prefix []string
}

// perfCommand is the command that runs perf with args: wrapped in
// unshare and sh so that perf sees the kernel's bounds file as
// /proc/kallsyms when perflab can (as root, with unshare, mount and sh);
// perf itself otherwise.
func perfCommand(perf string, args []string) (string, []string) {
	kallsymsOnce.Do(func() {
		kallsymsOnce.prefix = kallsymsWrapper()
	})
	if kallsymsOnce.prefix == nil {
		return perf, args
	}
	p := kallsymsOnce.prefix
	return p[0], append(append(p[1:len(p):len(p)], perf), args...)
}

// kallsymsWrapper is the command line before perf's, or nil when perf
// must read the real table. A failed bind mount leaves perf to read it
// (sh goes on); unshare is tried once here, as it needs a privilege a
// container may not grant.
func kallsymsWrapper() []string {
	if os.Geteuid() != 0 {
		return nil
	}
	unshare, err1 := exec.LookPath("unshare")
	_, err2 := exec.LookPath("mount")
	sh, err3 := exec.LookPath("sh")
	if err1 != nil || err2 != nil || err3 != nil {
		return nil
	}
	file, err := kernelBoundsFile()
	if err != nil {
		return nil
	}
	ns := []string{unshare, "--mount", "--propagation", "private", "--"}
	if exec.Command(ns[0], append(ns[1:], "true")...).Run() != nil {
		return nil
	}
	return append(ns, sh, "-c", `mount --bind "$0" /proc/kallsyms 2>/dev/null; exec "$@"`, file)
}

// kernelBoundsFile writes (once per boot, in perflab's cache directory)
// the lines of /proc/kallsyms that name kernelBoundSymbols.
func kernelBoundsFile() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", err
	}
	dir = filepath.Join(dir, "perflab")
	path := filepath.Join(dir, "kallsyms-bounds-"+strings.TrimSpace(string(boot)))
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		return path, nil
	}
	f, err := os.Open("/proc/kallsyms")
	if err != nil {
		return "", err
	}
	lines, err := kernelBounds(io.LimitReader(f, maxKallsyms))
	_ = f.Close()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return path, files.WriteFile(path, lines)
}

// kernelBounds reads the lines of a symbol table (/proc/kallsyms' form:
// address, type, name, and a module for a module's symbols) that name
// kernelBoundSymbols, stopping when it has them all; an error when one is
// missing (addresses hidden, for one: they read 0).
func kernelBounds(r io.Reader) ([]byte, error) {
	want := map[string]bool{}
	for _, s := range kernelBoundSymbols {
		want[s] = true
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(r)
	for len(want) > 0 && sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 3 && want[fields[2]] && strings.Trim(fields[0], "0") != "" {
			delete(want, fields[2])
			out.WriteString(strings.Join(fields, " ") + "\n")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(want) > 0 {
		return nil, errMissingKernelBounds
	}
	return out.Bytes(), nil
}
