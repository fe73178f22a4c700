package service

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// group is a cgroup holding the service: one directory on v2, one per
// controller on v1 (cpu and cpuacct share one when co-mounted).
//
// The files are written directly rather than through containerd's cgroup1
// and cgroup2 managers: placing the process before it runs (CgroupFD on v2,
// the shell gate on v1) has to be done here anyway, cgroup1.New creates the
// group in every mounted v1 controller (cpuset, devices, freezer, ...) when
// three are needed, their Stat reads every controller's files (too costly
// for a sampler ticking several times a second), and the two packages would
// add eBPF, D-Bus and protobuf modules to perflab for six small files. The
// containerd module is still used for the host's mode and /proc/PID/cgroup.
type group struct {
	version int
	// dirs are the directories of the group; removed on close when owned.
	dirs  []string
	owned bool
	// cpuDir holds cpu.max or cpu.cfs_quota_us and cpu.stat; acctDir holds
	// cpuacct.usage (v1 only); memDir the memory files; procsDir the
	// cgroup.procs listing the service's processes.
	cpuDir, acctDir, memDir, procsDir string
	// cpusetDir confines the CPUs (--service-cpus); "" when not asked for
	// or not available (the CPUs are then the service's affinity).
	cpusetDir string

	// files are the paths the sampler reads, joined once.
	filesOnce sync.Once
	files     struct{ cpuStat, cpuUsage, memUsage, procs string }
}

// paths returns the files the sampler reads ("" where absent).
func (g *group) paths() *struct{ cpuStat, cpuUsage, memUsage, procs string } {
	g.filesOnce.Do(func() {
		f := &g.files
		join := func(dir, name string) string {
			if dir == "" {
				return ""
			}
			return filepath.Join(dir, name)
		}
		f.cpuStat, f.procs = join(g.cpuDir, "cpu.stat"), join(g.procsDir, "cgroup.procs")
		if g.version == 2 {
			f.memUsage = join(g.memDir, "memory.current")
		} else {
			f.cpuUsage, f.memUsage = join(g.acctDir, "cpuacct.usage"), join(g.memDir, "memory.usage_in_bytes")
		}
	})
	return &g.files
}

// source names the group's version as Sample.Source does.
func (g *group) source() string {
	if g.version == 2 {
		return "cgroup-v2"
	}
	return "cgroup-v1"
}

// createGroup makes the group for a launched service and writes its budget.
// Warnings say which part of the budget the host cannot enforce.
func createGroup(l layout, name string, b Budget) (*group, []string, error) {
	var g *group
	var warns []string
	var err error
	if l.v2 != nil {
		g, warns, err = createV2(*l.v2, name, b)
	} else {
		g, warns, err = createV1(l, name, b)
	}
	if err != nil && g != nil {
		_ = g.remove() // the creation's error is the one to report
		g = nil
	}
	return g, warns, err
}

// setDir records the directory of a v1 controller.
func (g *group) setDir(controller, dir string) {
	switch controller {
	case cpuController:
		g.cpuDir = dir
	case "cpuacct":
		g.acctDir = dir
	case "memory":
		g.memDir = dir
	}
}

func createV1(l layout, name string, b Budget) (*group, []string, error) {
	g := &group{version: 1, owned: true}
	self := l.selfDirs()
	for _, c := range v1Controllers {
		parent, ok := self[c]
		if !ok {
			continue
		}
		dir := filepath.Join(parent, name)
		if !slices.Contains(g.dirs, dir) {
			if err := os.Mkdir(dir, 0o755); err != nil {
				return g, nil, fmt.Errorf("creating cgroup: %w", err)
			}
			g.dirs = append(g.dirs, dir)
		}
		g.setDir(c, dir)
	}
	if len(g.dirs) == 0 {
		return nil, nil, errors.New("creating cgroup: no cpu, cpuacct or memory controller is mounted")
	}
	g.procsDir = firstNonEmpty(g.acctDir, g.cpuDir, g.memDir)
	var warns []string
	if b.CPUs > 0 && g.cpuDir == "" {
		warns = append(warns, "the cgroup v1 cpu controller is not mounted: the --cpus budget is not enforced")
	}
	if b.MemoryBytes > 0 && g.memDir == "" {
		warns = append(warns, "the cgroup v1 memory controller is not mounted: the --memory budget is not enforced")
	}
	if err := g.limitV1(b); err != nil {
		return g, warns, err
	}
	if len(b.CPUSet) > 0 {
		warns = append(warns, g.cpusetV1(self[cpusetController], name, b.CPUSet)...)
	}
	return g, warns, nil
}

func createV2(h hierarchy, name string, b Budget) (*group, []string, error) {
	parent := h.mount
	var warns []string
	avail := map[string]bool{}
	if c, err := os.ReadFile(filepath.Join(parent, "cgroup.controllers")); err == nil {
		for _, f := range strings.Fields(string(c)) {
			avail[f] = true
		}
	}
	// Enable cpu and memory for the children of the parent even without a
	// budget: they add throttling counts and memory.current to the samples.
	for _, c := range []string{cpuController, "memory", cpusetController} {
		if c == cpusetController && len(b.CPUSet) == 0 {
			continue
		}
		if avail[c] {
			if err := writeFile(filepath.Join(parent, "cgroup.subtree_control"), "+"+c); err != nil {
				avail[c] = false
			}
		}
	}
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("creating cgroup: %w", err)
	}
	g := &group{version: 2, owned: true, dirs: []string{dir}, cpuDir: dir, memDir: dir, procsDir: dir}
	enforced := b
	if b.CPUs > 0 && !avail[cpuController] {
		warns = append(warns, fmt.Sprintf("the cgroup v2 cpu controller cannot be enabled in %s: the --cpus budget is not enforced", parent))
		enforced.CPUs = 0
	}
	if b.MemoryBytes > 0 && !avail["memory"] {
		warns = append(warns, fmt.Sprintf("the cgroup v2 memory controller cannot be enabled in %s: the --memory budget is not enforced", parent))
		enforced.MemoryBytes = 0
	}
	if err := g.limitV2(enforced); err != nil {
		return g, warns, err
	}
	if len(b.CPUSet) > 0 {
		warns = append(warns, g.cpusetV2(parent, avail[cpusetController], b.CPUSet)...)
	}
	return g, warns, nil
}

// limitV1 writes b's CPU quota and memory limit into the group's v1
// directories that exist.
func (g *group) limitV1(b Budget) error {
	if b.CPUs > 0 && g.cpuDir != "" {
		const period = 100000
		if err := writeFile(filepath.Join(g.cpuDir, "cpu.cfs_period_us"), strconv.Itoa(period)); err != nil {
			return err
		}
		if err := writeFile(filepath.Join(g.cpuDir, "cpu.cfs_quota_us"), strconv.FormatInt(quotaUsec(b.CPUs, period), 10)); err != nil {
			return err
		}
	}
	if b.MemoryBytes > 0 && g.memDir != "" {
		return writeFile(filepath.Join(g.memDir, "memory.limit_in_bytes"), strconv.FormatInt(b.MemoryBytes, 10))
	}
	return nil
}

// limitV2 writes b's CPU quota and memory limit into the v2 group (its
// parent enables the controllers).
func (g *group) limitV2(b Budget) error {
	dir := g.dirs[0]
	if b.CPUs > 0 {
		if err := writeFile(filepath.Join(dir, "cpu.max"), fmt.Sprintf("%d 100000", quotaUsec(b.CPUs, 100000))); err != nil {
			return err
		}
	}
	if b.MemoryBytes > 0 {
		return writeFile(filepath.Join(dir, "memory.max"), strconv.FormatInt(b.MemoryBytes, 10))
	}
	return nil
}

// quotaUsec is the CFS quota for cores per period; the kernel's minimum is
// 1000us.
func quotaUsec(cores float64, period int64) int64 {
	return max(int64(cores*float64(period)+0.5), 1000)
}

// addPID moves pid into every directory of the group (v1 placement).
func (g *group) addPID(pid int) error {
	for _, d := range g.dirs {
		if err := writeFile(filepath.Join(d, "cgroup.procs"), strconv.Itoa(pid)); err != nil {
			return err
		}
	}
	return nil
}

// read fills the cgroup fields of s: cumulative CPU, throttling, memory.
func (g *group) read(r *fileReader, s *Sample) error {
	f := g.paths()
	if f.cpuUsage != "" {
		ns, err := r.readInt(f.cpuUsage)
		if err != nil {
			return err
		}
		s.CPUSeconds = float64(ns) / 1e9
	}
	if f.cpuStat != "" {
		b, err := r.read(f.cpuStat)
		if err != nil && g.version == 2 {
			return err
		}
		if err == nil {
			st, err := parseCPUStat(b)
			if err != nil && g.version == 2 {
				return err
			}
			s.Periods, s.ThrottledPeriods, s.ThrottledSeconds = st.Periods, st.Throttled, float64(st.ThrottledUsec)/1e6
			if g.version == 2 {
				s.CPUSeconds = float64(st.UsageUsec) / 1e6
			}
		}
	}
	if f.memUsage != "" {
		if v, err := r.readInt(f.memUsage); err == nil {
			s.MemoryBytes = v
		}
	}
	return nil
}

// hasCPU says whether the group can report CPU time.
func (g *group) hasCPU() bool { return g.version == 2 || g.acctDir != "" }

// pids appends the group's processes to dst.
func (g *group) pids(r *fileReader, dst []int) ([]int, error) {
	b, err := r.read(g.paths().procs)
	if err != nil {
		return dst, err
	}
	return parsePIDs(dst, b)
}

// cpuLimit is the group's CPU quota in cores (0: none or unknown).
func (g *group) cpuLimit() float64 {
	if g.cpuDir == "" {
		return 0
	}
	var r fileReader
	if g.version == 2 {
		b, err := r.read(filepath.Join(g.cpuDir, "cpu.max"))
		if err != nil {
			return 0
		}
		c, _ := parseCPUMax(b)
		return c
	}
	q, err1 := r.readInt(filepath.Join(g.cpuDir, "cpu.cfs_quota_us"))
	p, err2 := r.readInt(filepath.Join(g.cpuDir, "cpu.cfs_period_us"))
	if err1 != nil || err2 != nil {
		return 0
	}
	return quotaCores(q, p)
}

// memLimit is the group's memory limit in bytes (0: none or unknown).
func (g *group) memLimit() int64 {
	if g.memDir == "" {
		return 0
	}
	var r fileReader
	file := "memory.limit_in_bytes"
	if g.version == 2 {
		file = "memory.max"
	}
	v, err := r.readInt(filepath.Join(g.memDir, file))
	if err != nil || v < 0 || v >= noMemLimit {
		return 0
	}
	return v
}

// remove kills every process left in the group and removes its
// directories. It does nothing for a group perflab did not create.
func (g *group) remove() error {
	if g == nil || !g.owned {
		return nil
	}
	var r fileReader
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := g.kill(&r, unix.SIGKILL)
		var errs []error
		if left == 0 {
			for i := len(g.dirs) - 1; i >= 0; i-- {
				if err := unix.Rmdir(g.dirs[i]); err != nil && err != unix.ENOENT {
					errs = append(errs, fmt.Errorf("removing cgroup %s: %w", g.dirs[i], err))
				}
			}
			if len(errs) == 0 {
				return nil
			}
		}
		if time.Now().After(deadline) {
			if left > 0 {
				errs = append(errs, fmt.Errorf("removing cgroup %s: %d processes survive SIGKILL", g.dirs[0], left))
			}
			return errors.Join(errs...)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// signal sends sig to every process in a group perflab created.
func (g *group) signal(sig unix.Signal) int {
	if g == nil || !g.owned {
		return 0
	}
	var r fileReader
	return g.kill(&r, sig)
}

// kill sends sig to every process in any of the group's directories and
// returns how many there were.
func (g *group) kill(r *fileReader, sig unix.Signal) int {
	n := 0
	for _, d := range g.dirs {
		b, err := r.read(filepath.Join(d, "cgroup.procs"))
		if err != nil {
			continue
		}
		pids, _ := parsePIDs(nil, b)
		for _, pid := range pids {
			_ = unix.Kill(pid, sig)
		}
		n += len(pids)
	}
	return n
}

func writeFile(path, v string) error {
	if err := os.WriteFile(path, []byte(v), 0o644); err != nil {
		return fmt.Errorf("writing %q to %s: %w", v, path, unwrapPathErr(err))
	}
	return nil
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
