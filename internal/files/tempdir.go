package files

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A temporary directory of perflab's records its owner, the process that
// made it, in ownerFile: "PID STARTTIME BOOTID" (the start time in clock
// ticks since boot, /proc/PID/stat's 22nd field, tells the owner from a
// later process given its pid; the boot id, one from before a reboot).
// A perflab killed with SIGKILL cannot remove its directories; the next
// perflab finds them by that record and removes those whose owner is gone
// (RemoveStale).
const ownerFile = ".perflab-owner"

// tempPrefix starts the name of every temporary directory of perflab's.
const tempPrefix = "perflab-"

// TempDir creates a new directory in the system's temporary directory,
// named prefix (which must start with "perflab-") and a random suffix, and
// records this process as its owner. The caller removes it when done.
func TempDir(prefix string) (string, error) {
	if !strings.HasPrefix(prefix, tempPrefix) {
		return "", fmt.Errorf("temporary directory %q: its name must start with %q", prefix, tempPrefix)
	}
	owner, err := processOwner(os.Getpid())
	if err != nil {
		return "", fmt.Errorf("creating a temporary directory: %w", err)
	}
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", err
	}
	if err := WriteFile(filepath.Join(dir, ownerFile), []byte(owner.String()+"\n")); err != nil {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("creating a temporary directory: %w", err)
	}
	return dir, nil
}

// RemoveStale removes perflab's temporary directories (made by TempDir)
// whose owner is gone: it exited or was killed, the machine rebooted, or
// its pid now belongs to another process. A directory whose owner still
// runs, or whose owner cannot be told (no record yet, a /proc perflab may
// not read), is kept. It returns the directories removed.
func RemoveStale() []string {
	matches, _ := filepath.Glob(filepath.Join(os.TempDir(), tempPrefix+"*"))
	var removed []string
	for _, dir := range matches {
		b, err := ReadFile(filepath.Join(dir, ownerFile), 256)
		if err != nil {
			continue // not TempDir's, or its record not written yet
		}
		owner, err := parseOwner(string(b))
		if err != nil || !owner.gone() {
			continue
		}
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}

// owner identifies a process across pid reuse and reboots.
type owner struct {
	pid   int
	start uint64 // clock ticks after boot
	boot  string
}

func (o owner) String() string { return fmt.Sprintf("%d %d %s", o.pid, o.start, o.boot) }

func parseOwner(s string) (owner, error) {
	f := strings.Fields(s)
	if len(f) != 3 {
		return owner{}, fmt.Errorf("owner record %q: want PID STARTTIME BOOTID", s)
	}
	pid, err1 := strconv.Atoi(f[0])
	start, err2 := strconv.ParseUint(f[1], 10, 64)
	if err1 != nil || err2 != nil || pid <= 0 {
		return owner{}, fmt.Errorf("owner record %q: want PID STARTTIME BOOTID", s)
	}
	return owner{pid: pid, start: start, boot: f[2]}, nil
}

// processOwner is the owner record of the running process pid.
func processOwner(pid int) (owner, error) {
	boot, err := bootID()
	if err != nil {
		return owner{}, err
	}
	st, err := procStat(pid)
	if err != nil {
		return owner{}, err
	}
	if st.zombie {
		return owner{}, fmt.Errorf("process %d has exited", pid)
	}
	return owner{pid: pid, start: st.start, boot: boot}, nil
}

// gone says whether the owner no longer runs. When it cannot tell, it
// says the owner runs.
func (o owner) gone() bool {
	if boot, err := bootID(); err == nil && boot != o.boot {
		return true
	}
	st, err := procStat(o.pid)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return true
	case err != nil:
		return false
	}
	return st.zombie || st.start != o.start
}

func bootID() (string, error) {
	b, err := ReadFile("/proc/sys/kernel/random/boot_id", 128)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// procState is what the owner check needs of /proc/PID/stat.
type procState struct {
	start  uint64
	zombie bool // exited, not yet reaped
}

// procStat reads /proc/PID/stat: "PID (COMM) STATE PPID ...", the start
// time the 22nd field. COMM may hold spaces and parentheses: the fields
// are counted from the last ')'.
func procStat(pid int) (procState, error) {
	b, err := ReadFile("/proc/"+strconv.Itoa(pid)+"/stat", 4096)
	if err != nil {
		return procState{}, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[i+1:])
	if i < 0 || len(f) < 20 {
		return procState{}, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	start, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return procState{}, fmt.Errorf("/proc/%d/stat: start time %q: %w", pid, f[19], err)
	}
	return procState{start: start, zombie: f[0] == "Z" || f[0] == "X"}, nil
}

// UnnamedTemp creates a file with no name (O_TMPFILE) in the system's
// temporary directory, open for reading and writing, that name labels in
// errors: it exists while a process holds it open, so it needs no removal,
// whatever ends the processes. It fails where the file system cannot make
// one.
func UnnamedTemp(name string) (*os.File, error) {
	fd, err := unix.Open(os.TempDir(), unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, &os.PathError{Op: "open unnamed", Path: os.TempDir(), Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}
