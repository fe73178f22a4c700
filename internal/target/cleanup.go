package target

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// CleanupStale removes perflab-* cgroups left by perflab processes that are
// gone (killed before they could stop their service) and that hold no
// process. Groups of a running perflab, and groups whose service still
// runs, are left alone.
func CleanupStale() error {
	return cleanupStale(detectLayout())
}

func cleanupStale(l layout) error {
	var parents []string
	if l.v2 != nil {
		parents = append(parents, l.v2.mount)
	}
	for _, d := range l.selfDirs() {
		parents = append(parents, d)
	}
	for _, h := range l.v1 {
		parents = append(parents, h.mount)
	}
	var errs []error
	seen := map[string]bool{}
	for _, parent := range parents {
		if seen[parent] {
			continue
		}
		seen[parent] = true
		entries, err := os.ReadDir(parent)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir() && stale(e.Name()) {
				errs = append(errs, removeIfEmpty(filepath.Join(parent, e.Name())))
			}
		}
	}
	return errors.Join(errs...)
}

// stale says whether a group name is perflab's and its creator is gone.
func stale(name string) bool {
	if !strings.HasPrefix(name, "perflab-") {
		return false
	}
	f := strings.Split(name, "-")
	if len(f) < 4 {
		return false
	}
	creator, err := strconv.Atoi(f[len(f)-2])
	return err == nil && creator > 0 && !pidAlive(creator)
}

func removeIfEmpty(dir string) error {
	var r fileReader
	b, err := r.read(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	if pids, _ := parsePIDs(nil, b); len(pids) > 0 {
		return nil
	}
	if err := unix.Rmdir(dir); err != nil && err != unix.ENOENT {
		return fmt.Errorf("removing stale cgroup %s: %w", dir, err)
	}
	return nil
}
