package service

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/containerd/cgroups/v3"
	"golang.org/x/sys/unix"
)

// attachMark begins the name of a group an attached service is moved
// into (perflab-attach+NAME-PID-RAND). A launched service's group name
// cannot hold '+', so a stale one is told apart: its processes are moved
// back, never killed.
const attachMark = "perflab-attach+"

// AttachBudget attaches to pid as Attach does, then moves the process, its
// threads and its child processes into a cgroup with budget b, created
// inside the process's own cgroup in each hierarchy it needs (so the
// service stays within any limit of its unit or container). Processes it
// forks later are born in the group. Stop moves every process of the
// group back into the cgroups each came from and removes the group; when
// perflab is killed before Stop, the next perflab's CleanupStale moves
// them into the group's parent (the main process's own cgroup).
//
// The user asked for the budget, so perflab does not measure without it:
// when the move is impossible (not permitted, a threaded cgroup, cgroup
// v2's rule that a group whose controllers its children use holds no
// process, a controller the host lacks) AttachBudget says why and fails,
// the service left where it was.
func AttachBudget(pid int, b Budget) (*Process, error) {
	return attachBudget(detectLayout(), pid, b)
}

func attachBudget(l layout, pid int, b Budget) (*Process, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	if len(b.CPUSet) > 0 {
		return nil, errors.New("--service-cpus applies to a service perflab launches, not to an attached one")
	}
	if err := CheckNotPerflab(pid); err != nil {
		return nil, fmt.Errorf("attaching to pid %d: %w", pid, err)
	}
	p, err := Attach(pid)
	if err != nil {
		return nil, err
	}
	m, err := moveIn(l, pid, b, attachName(pid))
	if err != nil {
		_ = p.Stop(0)
		return nil, fmt.Errorf("moving pid %d into a cgroup with %s: %w; perflab does not measure it without the budget asked for (leave out --cpus and --memory to measure it where it runs)", pid, b, err)
	}
	p.grp, p.moved, p.warnings = m.grp, m, m.warns
	return p, nil
}

// attachName is the group's name: perflab-attach+COMM-PID-RAND, PID
// perflab's own (CleanupStale's test of a stale group).
func attachName(pid int) string {
	return attachMark + strings.TrimPrefix(groupName(LaunchConfig{Name: commName(pid)}), "perflab-")
}

// movedGroup is the budget group an attached service was moved into, and
// where its processes came from.
type movedGroup struct {
	l    layout
	main int
	// grp is the group, one directory per hierarchy it needs. It is never
	// owned: nothing in it is killed when it is removed.
	grp *group
	// origins maps each process moved to its cgroup before, by hierarchy
	// key (a v1 controller, or "" for the v2 tree), as /proc/PID/cgroup
	// words it; nil for a process born in the group.
	origins map[int]map[string]string
	// parentV2 is the v2 group's parent; enabled lists the controllers
	// perflab enabled in its cgroup.subtree_control, to disable again
	// before the processes move back into it.
	parentV2 string
	enabled  []string
	warns    []string
}

// maxMovePasses bounds the passes over a process tree that forks while
// it is moved.
const maxMovePasses = 20

func moveIn(l layout, pid int, b Budget, name string) (*movedGroup, error) {
	m := &movedGroup{l: l, main: pid, origins: map[int]map[string]string{}}
	keys, err := m.keys(b)
	if err != nil {
		return nil, err
	}
	origin, err := m.origin(pid, keys)
	if err != nil {
		return nil, err
	}
	if err := m.create(origin, keys, name, b); err != nil {
		return nil, m.undo(err)
	}
	if err := m.moveTree(keys); err != nil {
		return nil, m.undo(err)
	}
	if m.grp.version == 2 {
		if err := m.enableV2(b); err != nil {
			return nil, m.undo(err)
		}
	}
	return m, nil
}

// keys are the hierarchies the group needs: the v2 tree, or the v1
// controllers of CPU time (cpuacct), of the quota (cpu, with --cpus) and
// of the memory limit (memory, with --memory).
func (m *movedGroup) keys(b Budget) ([]string, error) {
	if m.l.v2 != nil {
		return []string{""}, nil
	}
	if len(m.l.v1) == 0 {
		return nil, errors.New("no cgroup hierarchy is mounted")
	}
	need := []string{"cpuacct"}
	if b.CPUs > 0 {
		need = append(need, cpuController)
	}
	if b.MemoryBytes > 0 {
		need = append(need, "memory")
	}
	var keys []string
	for _, c := range need {
		if _, ok := m.l.v1[c]; ok {
			keys = append(keys, c)
		} else if c != "cpuacct" {
			return nil, fmt.Errorf("the cgroup v1 %s controller is not mounted", c)
		}
	}
	return keys, nil
}

// hier is the hierarchy of a key.
func (m *movedGroup) hier(key string) hierarchy {
	if key == "" {
		return *m.l.v2
	}
	return m.l.v1[key]
}

// origin reads pid's cgroups in the hierarchies of keys. A process whose
// threads are not all in its cgroup (v1 places threads apart; v2 in a
// threaded subtree) is refused: perflab could not put the threads back.
func (m *movedGroup) origin(pid int, keys []string) (map[string]string, error) {
	o, err := cgroupsOf(fmt.Sprintf("/proc/%d/cgroup", pid), keys)
	if err != nil {
		return nil, fmt.Errorf("reading the cgroups of pid %d: %w", pid, err)
	}
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		to, err := cgroupsOf(fmt.Sprintf("/proc/%d/task/%s/cgroup", pid, t.Name()), keys)
		if err == nil && !maps.Equal(o, to) {
			return nil, fmt.Errorf("thread %s of pid %d is in another cgroup than its process (%s): the kernel moves a process's threads together, and perflab could not put them back apart", t.Name(), pid, describe(to))
		}
	}
	if m.l.v2 != nil {
		if typ, err := os.ReadFile(filepath.Join(m.hier("").dir(o[""]), "cgroup.type")); err == nil {
			if t := strings.TrimSpace(string(typ)); t != "domain" {
				return nil, fmt.Errorf("pid %d is in a %q cgroup (%s): the threads of a threaded cgroup subtree cannot be moved out and back", pid, t, o[""])
			}
		}
	}
	return o, nil
}

// cgroupsOf reads a /proc cgroup file: the path in each hierarchy of keys.
func cgroupsOf(path string, keys []string) (map[string]string, error) {
	v1, v2, err := cgroups.ParseCgroupFileUnified(path)
	if err != nil {
		return nil, err
	}
	o := map[string]string{}
	for _, k := range keys {
		p := v2
		if k != "" {
			p = v1[k]
		}
		if p == "" {
			return nil, fmt.Errorf("%s names no %s cgroup", path, keyName(k))
		}
		o[k] = p
	}
	return o, nil
}

func keyName(k string) string {
	if k == "" {
		return "v2"
	}
	return "v1 " + k
}

// describe words a process's cgroups for a message.
func describe(o map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(o)) {
		parts = append(parts, keyName(k)+" "+o[k])
	}
	return strings.Join(parts, ", ")
}

// create makes the group inside the main process's cgroups and, on v1,
// writes the budget (on v2 the parent can enable the controllers only
// once the processes have left it: enableV2).
func (m *movedGroup) create(origin map[string]string, keys []string, name string, b Budget) error {
	g := &group{version: 1}
	if m.l.v2 != nil {
		g.version = 2
	}
	m.grp = g
	for _, k := range keys {
		parent := m.hier(k).dir(origin[k])
		dir := filepath.Join(parent, name)
		if !slices.Contains(g.dirs, dir) {
			if err := os.Mkdir(dir, 0o755); err != nil {
				return fmt.Errorf("creating cgroup: %w", err)
			}
			g.dirs = append(g.dirs, dir)
		}
		if k == "" {
			g.cpuDir, g.memDir, g.procsDir, m.parentV2 = dir, dir, dir, parent
		} else {
			g.setDir(k, dir)
		}
	}
	if g.version == 2 {
		if b.MemoryBytes > 0 {
			m.warns = append(m.warns, fmt.Sprintf("cgroup v2 leaves the memory pid %d already uses charged to the group it came from: --memory %s bounds what the service allocates from now on", m.main, FormatMemory(b.MemoryBytes)))
		}
		return nil
	}
	g.procsDir = firstNonEmpty(g.acctDir, g.cpuDir, g.memDir)
	if b.MemoryBytes > 0 {
		// The memory the service already uses moves with it (else the
		// limit bounds only what it allocates from now on).
		if err := writeFile(filepath.Join(g.memDir, "memory.move_charge_at_immigrate"), "3"); err != nil {
			var errno unix.Errno
			if !errors.As(err, &errno) {
				errno = unix.EINVAL
			}
			m.warns = append(m.warns, fmt.Sprintf("cgroup v1 leaves the memory pid %d already uses charged to the group it came from (this kernel's memory.move_charge_at_immigrate: %v): --memory %s bounds what the service allocates from now on", m.main, errno, FormatMemory(b.MemoryBytes)))
		}
	}
	return g.limitV1(b)
}

// moveTree moves the main process's tree into the group, again until a
// pass finds none left outside: a process may fork while the tree is
// moved (a child forked after its parent moved is born inside).
func (m *movedGroup) moveTree(keys []string) error {
	var w procWalker
	for pass := 0; ; pass++ {
		moved := 0
		for _, q := range w.tree(m.main, nil) {
			if _, seen := m.origins[q]; seen {
				continue
			}
			o, err := m.origin(q, keys)
			if err != nil {
				if !pidAlive(q) {
					continue
				}
				return err
			}
			if m.inside(o) {
				m.origins[q] = nil
				continue
			}
			m.origins[q] = o
			if err := m.grp.addPID(q); err != nil {
				if errors.Is(err, unix.ESRCH) {
					continue
				}
				return explainMove(err)
			}
			moved++
		}
		if moved == 0 {
			return nil
		}
		if pass == maxMovePasses {
			return fmt.Errorf("pid %d's processes fork faster than perflab moves them", m.main)
		}
	}
}

// inside says whether cgroups o are the group's own.
func (m *movedGroup) inside(o map[string]string) bool {
	for k, p := range o {
		if slices.Contains(m.grp.dirs, m.hier(k).dir(p)) {
			return true
		}
	}
	return false
}

// enableV2 enables the budget's controllers for the v2 group in its
// parent, now that the processes have left the parent, and writes the
// budget. The root group is exempt from v2's rule that a group whose
// controllers its children use holds no process; any other parent still
// holding processes (not the service's) is reported with them.
func (m *movedGroup) enableV2(b Budget) error {
	var want []string
	if b.CPUs > 0 {
		want = append(want, cpuController)
	}
	if b.MemoryBytes > 0 {
		want = append(want, "memory")
	}
	if err := m.enableControllers(want); err != nil {
		return err
	}
	return m.grp.limitV2(b)
}

// enableControllers enables controllers in the v2 group's parent.
func (m *movedGroup) enableControllers(want []string) error {
	parent := m.parentV2
	avail, on := words(filepath.Join(parent, "cgroup.controllers")), words(filepath.Join(parent, "cgroup.subtree_control"))
	for _, c := range want {
		if on[c] {
			continue
		}
		if !avail[c] {
			return fmt.Errorf("the cgroup v2 %s controller is not available in %s (its parent's cgroup.subtree_control does not enable it)", c, parent)
		}
		if err := writeFile(filepath.Join(parent, "cgroup.subtree_control"), "+"+c); err != nil {
			if errors.Is(err, unix.EBUSY) {
				return m.othersIn(parent)
			}
			return err
		}
		if parent != m.l.v2.mount {
			m.enabled = append(m.enabled, c)
		}
	}
	return nil
}

// othersIn reports the processes other than the service's in the v2
// group parent, which keep the budget's controllers from its children.
func (m *movedGroup) othersIn(parent string) error {
	var r fileReader
	b, _ := r.read(filepath.Join(parent, "cgroup.procs"))
	pids, _ := parsePIDs(nil, b)
	var names []string
	for _, pid := range pids[:min(len(pids), 3)] {
		names = append(names, fmt.Sprintf("%d (%s)", pid, commName(pid)))
	}
	if len(pids) > 3 {
		names = append(names, fmt.Sprintf("and %d more", len(pids)-3))
	}
	return fmt.Errorf("cgroup %s also holds %s, not the service's processes, and cgroup v2 allows no process in a group whose controllers its children use: start the service in a cgroup of its own (systemd-run --scope CMD, a container)", parent, strings.Join(names, ", "))
}

// words reads a file of space-separated words (cgroup.controllers).
func words(path string) map[string]bool {
	b, _ := os.ReadFile(path)
	out := map[string]bool{}
	for _, f := range strings.Fields(string(b)) {
		out[f] = true
	}
	return out
}

// undo moves back what moveIn moved after it failed with err.
func (m *movedGroup) undo(err error) error {
	if rerr := m.restore(); rerr != nil {
		return fmt.Errorf("%w; and moving it back: %v", err, rerr)
	}
	return err
}

// restore disables the v2 controllers perflab enabled, moves every process
// of the group back into its own cgroups (one born in the group into the
// main process's) and removes the group.
func (m *movedGroup) restore() error {
	if m.grp == nil {
		return nil
	}
	var errs []error
	for _, c := range m.enabled {
		if err := writeFile(filepath.Join(m.parentV2, "cgroup.subtree_control"), "-"+c); err != nil {
			errs = append(errs, err)
		}
	}
	m.enabled = nil
	for _, dir := range m.grp.dirs {
		errs = append(errs, restoreDir(dir, m.dest))
	}
	return errors.Join(errs...)
}

// dest is the directory pid goes back to from the group's directory dir.
func (m *movedGroup) dest(pid int, dir string) string {
	o := m.origins[pid]
	if o == nil {
		o = m.origins[m.main]
	}
	for k, p := range o {
		h := m.hier(k)
		if strings.HasPrefix(dir, h.mount+"/") {
			return h.dir(p)
		}
	}
	return filepath.Dir(dir)
}

// restoreDir moves every process of the group directory dir to dest's
// directory for it (or the nearest existing one above: a group removed
// meanwhile), again until none is left, then removes dir. A move to a
// group other than dest's is said in the error.
func restoreDir(dir string, dest func(pid int, dir string) string) error {
	var r fileReader
	var notes []error
	deadline := time.Now().Add(killTimeout)
	for {
		b, err := r.read(filepath.Join(dir, "cgroup.procs"))
		if errors.Is(err, fs.ErrNotExist) {
			return errors.Join(notes...)
		}
		if err != nil {
			return fmt.Errorf("reading the processes of cgroup %s: %w", dir, err)
		}
		pids, _ := parsePIDs(nil, b)
		if len(pids) == 0 {
			err := unix.Rmdir(dir)
			if err == nil || err == unix.ENOENT {
				return errors.Join(notes...)
			}
			if err != unix.EBUSY || time.Now().After(deadline) {
				return errors.Join(append(notes, fmt.Errorf("removing cgroup %s: %w", dir, err))...)
			}
			time.Sleep(10 * time.Millisecond) // exiting processes leave the group
			continue
		}
		var errs []error
		for _, pid := range pids {
			want := dest(pid, dir)
			to := existingGroup(want)
			if to != want {
				notes = append(notes, fmt.Errorf("cgroup %s of pid %d is gone: it was moved to %s", want, pid, to))
			}
			if err := writeFile(filepath.Join(to, "cgroup.procs"), strconv.Itoa(pid)); err != nil && !errors.Is(err, unix.ESRCH) {
				errs = append(errs, fmt.Errorf("moving pid %d back: %w", pid, explainMove(err)))
			}
		}
		if len(errs) > 0 {
			return errors.Join(append(notes, errs...)...)
		}
		if time.Now().After(deadline) {
			return errors.Join(append(notes, fmt.Errorf("moving the processes of cgroup %s back: they fork faster than perflab moves them", dir))...)
		}
	}
}

// existingGroup is dir, or its nearest ancestor that is a cgroup.
func existingGroup(dir string) string {
	for d := dir; d != "/" && d != "."; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "cgroup.procs")); err == nil {
			return d
		}
	}
	return dir
}

// explainMove says why the kernel refused to move a process between
// cgroups, after its own words.
func explainMove(err error) error {
	switch {
	case isPermission(err):
		return fmt.Errorf("%w (moving another process between cgroups takes root, or write access to both groups and to their common ancestor's cgroup.procs)", err)
	case errors.Is(err, unix.EBUSY):
		return fmt.Errorf("%w (cgroup v2 allows no process in a group whose controllers its children use)", err)
	case errors.Is(err, unix.EOPNOTSUPP):
		return fmt.Errorf("%w (a threaded cgroup: cgroup v2 moves a process only into a domain group of its subtree)", err)
	case errors.Is(err, unix.EINVAL):
		return fmt.Errorf("%w (the kernel keeps this process where it is: a kernel thread, or a real-time one the group has no cpu.rt_runtime_us for)", err)
	}
	return err
}

// staleAttached moves the processes of stale attach groups (their perflab
// is gone) back into each group's parent, the main process's own cgroup,
// and removes the groups. The groups lie inside the services' cgroups, so
// every hierarchy is walked, within a bound.
func staleAttached(l layout) error {
	var errs []error
	for _, root := range hierarchyMounts(l) {
		seen := 0
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			if seen++; seen > maxWalkGroups {
				return filepath.SkipAll
			}
			name := d.Name()
			if !strings.HasPrefix(name, attachMark) {
				return nil
			}
			if stale(name) {
				errs = append(errs, restoreStale(l, path))
			}
			return filepath.SkipDir
		})
	}
	return errors.Join(errs...)
}

// maxWalkGroups bounds the groups staleAttached visits per hierarchy.
const maxWalkGroups = 100_000

// hierarchyMounts lists, once each, the mounts of the trees perflab uses.
func hierarchyMounts(l layout) []string {
	var out []string
	if l.v2 != nil {
		out = append(out, l.v2.mount)
	}
	for _, h := range l.v1 {
		out = append(out, h.mount)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// restoreStale moves a stale attach group's processes into its parent. On
// v2 the parent held the service before, so it used no controller for
// its children then: the budget's are disabled again first.
func restoreStale(l layout, dir string) error {
	parent := filepath.Dir(dir)
	if l.v2 != nil && strings.HasPrefix(dir, l.v2.mount+"/") && parent != l.v2.mount {
		on := words(filepath.Join(parent, "cgroup.subtree_control"))
		for _, c := range []string{cpuController, "memory"} {
			if on[c] {
				_ = writeFile(filepath.Join(parent, "cgroup.subtree_control"), "-"+c) // refused if another child uses it: the move then says so
			}
		}
	}
	if err := restoreDir(dir, func(int, string) string { return parent }); err != nil {
		return fmt.Errorf("moving the processes of stale cgroup %s back: %w", dir, err)
	}
	return nil
}
