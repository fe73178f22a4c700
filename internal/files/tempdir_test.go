package files

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// RemoveStale removes the temporary directories whose owner is gone (an
// exited process, a pid now another process's, a boot before this one)
// and keeps those of live owners and those with no owner record.
func TestRemoveStale(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	mine, err := TempDir("perflab-perf-")
	if err != nil {
		t.Fatal(err)
	}
	self, err := processOwner(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	parent, err := processOwner(os.Getppid())
	if err != nil {
		t.Fatal(err)
	}
	exited := exitedPID(t)
	dirs := map[string]string{} // name: owner record ("" for none)
	for name, rec := range map[string]owner{
		"exited":     {pid: exited, start: self.start, boot: self.boot},
		"pid reused": {pid: self.pid, start: self.start + 1, boot: self.boot},
		"old boot":   {pid: self.pid, start: self.start, boot: "00000000-0000-0000-0000-000000000000"},
		"parent":     parent,
	} {
		dirs[name] = rec.String()
	}
	dirs["no record"] = ""
	paths := map[string]string{}
	for name, rec := range dirs {
		dir, err := os.MkdirTemp("", "perflab-sched-")
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "sched.data"), []byte("samples"), 0o600)
		if rec != "" {
			os.WriteFile(filepath.Join(dir, ownerFile), []byte(rec+"\n"), 0o600)
		}
		paths[name] = dir
	}
	removed := RemoveStale()
	for name, dir := range paths {
		_, err := os.Stat(dir)
		gone := name == "exited" || name == "pid reused" || name == "old boot"
		if gone != os.IsNotExist(err) || gone != slices.Contains(removed, dir) {
			t.Errorf("%s: stat %v, in removed %v; want removed %v", name, err, slices.Contains(removed, dir), gone)
		}
	}
	if _, err := os.Stat(filepath.Join(mine, ownerFile)); err != nil {
		t.Errorf("this process's own directory: %v; want it kept", err)
	}
}

// exitedPID is the pid of a process that has exited and been reaped.
func exitedPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestTempDirNeedsPerflabPrefix(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	if _, err := TempDir("other-"); err == nil {
		t.Error(`TempDir("other-"): want an error (RemoveStale looks for perflab- only)`)
	}
}

// An unnamed file holds data and leaves no entry in the directory.
func TestUnnamedTempLeavesNoName(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	f, err := UnnamedTemp("perf.data")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("samples"); err != nil {
		t.Fatal(err)
	}
	back, err := os.ReadFile("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if ents, _ := os.ReadDir(tmp); err != nil || string(back) != "samples" || len(ents) != 0 {
		t.Errorf("read back %q, %v; %s holds %v; want the data and no entry", back, err, tmp, ents)
	}
}
