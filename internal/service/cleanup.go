package service

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// CleanupStale removes the perflab-* cgroups of perflab processes that are
// gone (killed before they could stop their service, by kill -9 or a third
// Ctrl-C), with every process still in them: the cgroup is the record of
// what such a perflab launched, daemons that left its process group
// included. The processes of an attached service's budget group
// (AttachBudget) are not perflab's: they are moved back into the group's
// parent instead. Groups of a running perflab are left alone.
func CleanupStale() error {
	return cleanupStale(detectLayout())
}

func cleanupStale(l layout) error {
	var errs []error
	for _, parent := range groupParents(l) {
		entries, err := os.ReadDir(parent)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir() && stale(e.Name()) && !strings.HasPrefix(e.Name(), attachMark) {
				errs = append(errs, killAndRemove(filepath.Join(parent, e.Name())))
			}
		}
	}
	errs = append(errs, staleAttached(l))
	return errors.Join(errs...)
}

// groupParents lists, once each, the directories perflab creates groups
// in: the v2 mount, perflab's own groups, the v1 mounts.
func groupParents(l layout) []string {
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
	slices.Sort(parents)
	return slices.Compact(parents)
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

// killAndRemove kills every process of the group dir (cgroup.kill where
// the kernel has it, SIGKILL to each listed process otherwise, again until
// none is left: a process may fork while it is being killed) and removes
// the group. It gives up after killTimeout.
func killAndRemove(dir string) error {
	var r fileReader
	procs := filepath.Join(dir, "cgroup.procs")
	_ = os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0) // v2 (Linux 5.14+); absent on v1
	deadline := time.Now().Add(killTimeout)
	for {
		b, err := r.read(procs)
		if err != nil {
			return nil // gone already
		}
		pids, _ := parsePIDs(nil, b)
		if len(pids) == 0 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("removing stale cgroup %s: processes %v survive SIGKILL", dir, pids)
		}
		for _, pid := range pids {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := unix.Rmdir(dir); err != nil && err != unix.ENOENT {
		return fmt.Errorf("removing stale cgroup %s: %w", dir, err)
	}
	return nil
}

// killTimeout bounds the killing of a stale group's processes.
const killTimeout = 5 * time.Second
