package service

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"perflab/internal/labtest"
	"perflab/internal/runfmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startTree starts the helper burning on n cores with a sleeping child
// (sh forks sleep, then execs the helper in its place), as a service
// perflab did not start; it is killed at cleanup.
func startTree(t *testing.T, n int) (main, child int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", `sleep 300 & exec "$0" `+strconv.Itoa(n), exe)
	cmd.Env = append(os.Environ(), helperEnv+"=burn")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	main = cmd.Process.Pid
	var w procWalker
	var tree []int
	labtest.Eventually(t, 10*time.Second, "the helper to start its child and threads", func() bool {
		tree = w.tree(main, tree[:0])
		return len(tree) >= 2 && strings.TrimSpace(readString(fmt.Sprintf("/proc/%d/comm", main))) != "sh" && threads(main) > n
	})
	t.Cleanup(func() { _ = unixKill(tree[1]) })
	return main, tree[1]
}

func readString(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

func threads(pid int) int {
	e, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	return len(e)
}

func unixKill(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// cgroupFile is /proc/PID/cgroup.
func cgroupFile(pid int) string { return readString(fmt.Sprintf("/proc/%d/cgroup", pid)) }

// TestAttachBudgetLimitsAndMovesBack moves a service burning two cores
// (with a child process) into a 0.5-core budget and back: inside, the
// group holds both processes, its quota is 0.5 cores and the service
// uses no more; after Stop both are in their own cgroups again and the
// group is gone.
func TestAttachBudgetLimitsAndMovesBack(t *testing.T) {
	l := detectLayout()
	if l.none() {
		t.Skip(labtest.SkipMessage(labtest.SkipHost, "cgroup", "no cgroup hierarchy mounted"))
	}
	main, child := startTree(t, 2)
	before := map[int]string{main: cgroupFile(main), child: cgroupFile(child)}
	p, err := attachBudget(l, main, Budget{CPUs: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			p.Stop(0)
		}
	})
	dirs := slices.Clone(p.grp.dirs)
	for _, pid := range []int{main, child} {
		if now := cgroupFile(pid); now == before[pid] || !strings.Contains(now, attachMark) {
			t.Errorf("pid %d's cgroups inside the budget: %q; want perflab's group (before: %q)", pid, now, before[pid])
		}
	}
	if got := p.PIDs(); !slices.Contains(got, main) || !slices.Contains(got, child) {
		t.Errorf("PIDs = %v; want %d and %d", got, main, child)
	}
	if c := p.CPULimitCores(); c != 0.5 {
		t.Errorf("CPULimitCores = %v; want 0.5", c)
	}
	if p.Source() == "proc" {
		t.Errorf("Source = proc; want the budget group's")
	}
	// The quota, not the machine, bounds a service burning 2 cores: the
	// group is throttled (a window the busy machine held below it is
	// sampled again, cleanWindow).
	w := cleanWindow(t, p, 2*time.Second, func(w runfmt.TargetSummary) bool { return w.ThrottledPct > 0 })
	t.Logf("%.3f cores, throttled in %.0f%% of periods", w.CPUCoresMean, w.ThrottledPct)
	if w.CPUCoresMean > 0.55 {
		t.Errorf("the service used %.3f cores under --cpus 0.5", w.CPUCoresMean)
	}
	if w.ThrottledPct == 0 {
		t.Errorf("the group was never throttled (%.3f cores of a service burning 2): the quota is not what bounds it", w.CPUCoresMean)
	}
	if err := p.Stop(0); err != nil {
		t.Fatal(err)
	}
	stopped = true
	for _, pid := range []int{main, child} {
		if now := cgroupFile(pid); now != before[pid] {
			t.Errorf("pid %d after Stop is in %q; want its own cgroups %q", pid, now, before[pid])
		}
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("the budget group %s survives Stop", d)
		}
	}
	if !pidAlive(main) || !pidAlive(child) {
		t.Error("Stop killed an attached process")
	}
}

// TestAttachBudgetChildBornInside forks a child after the move: it is born
// in the group and goes back into the main process's cgroups.
func TestAttachBudgetChildBornInside(t *testing.T) {
	l := detectLayout()
	if l.none() {
		t.Skip(labtest.SkipMessage(labtest.SkipHost, "cgroup", "no cgroup hierarchy mounted"))
	}
	cmd := exec.Command("sh", "-c", "read _; sleep 300 & echo forked; wait")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	before := cgroupFile(cmd.Process.Pid)
	p, err := attachBudget(l, cmd.Process.Pid, Budget{CPUs: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(0)
	io.WriteString(in, "go\n")
	buf := make([]byte, 7)
	if _, err := io.ReadFull(out, buf); err != nil {
		t.Fatal(err)
	}
	var w procWalker
	tree := w.tree(cmd.Process.Pid, nil)
	if len(tree) < 2 {
		t.Fatalf("no child forked: %v", tree)
	}
	child := tree[1]
	t.Cleanup(func() { unixKill(child) })
	if !strings.Contains(cgroupFile(child), attachMark) {
		t.Errorf("the child forked inside the budget is in %q", cgroupFile(child))
	}
	if err := p.Stop(0); err != nil {
		t.Fatal(err)
	}
	if got := cgroupFile(child); got != before {
		t.Errorf("the child born inside went to %q; want its parent's cgroups %q", got, before)
	}
}

// TestAttachBudgetRefusesSplitThreads refuses a process one of whose
// threads is in another v1 cpu group than the process: the kernel would
// move the thread with it, and perflab could not put it back.
func TestAttachBudgetRefusesSplitThreads(t *testing.T) {
	l := detectLayout()
	h, ok := l.v1[cpuController]
	if !ok {
		t.Skip(labtest.SkipMessage(labtest.SkipHost, "cgroup", "no cgroup v1 cpu controller (threads are placed apart on v1 only; v2 is tested by the threaded case)"))
	}
	main, _ := startTree(t, 2)
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", main))
	tid := tasks[len(tasks)-1].Name()
	split := filepath.Join(h.mount, fmt.Sprintf("perflab-test-split-%d", os.Getpid()))
	if err := os.Mkdir(split, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.WriteFile(filepath.Join(h.mount, "tasks"), []byte(tid), 0o644)
		os.Remove(split)
	})
	if err := os.WriteFile(filepath.Join(split, "tasks"), []byte(tid), 0o644); err != nil {
		t.Fatal(err)
	}
	before := cgroupFile(main)
	_, err := attachBudget(l, main, Budget{CPUs: 0.5})
	if err == nil || !strings.Contains(err.Error(), "thread "+tid) || !strings.Contains(err.Error(), "does not measure it without the budget") {
		t.Fatalf("attachBudget of a process with a thread apart = %v; want the thread named and the run refused", err)
	}
	t.Log(err)
	if now := cgroupFile(main); now != before {
		t.Errorf("the refused process moved: %q; was %q", now, before)
	}
	if left := leftoverGroups(); len(left) > 0 {
		t.Errorf("groups left after the refusal: %v", left)
	}
}

// TestAttachBudgetV2 moves a process into a group of the v2 tree and back
// (the host's own, or the unified tree of a hybrid host), and refuses a
// budget whose controller the tree cannot enable, moving it back.
func TestAttachBudgetV2(t *testing.T) {
	l, err := unifiedLayout("/sys/fs/cgroup")
	if err != nil {
		if l, err = unifiedLayout("/sys/fs/cgroup/unified"); err != nil {
			t.Skip(labtest.SkipMessage(labtest.SkipHost, "cgroup", "no cgroup2 tree mounted"))
		}
	}
	main, child := startTree(t, 1)
	before := map[int]string{main: cgroupFile(main), child: cgroupFile(child)}
	m, err := moveIn(l, main, Budget{}, attachName(main))
	if err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{main, child} {
		if !strings.Contains(cgroupFile(pid), "0::/"+strings.TrimPrefix(m.grp.dirs[0], l.v2.mount+"/")) {
			t.Errorf("pid %d in the v2 group: %q; want %s", pid, cgroupFile(pid), m.grp.dirs[0])
		}
	}
	if err := m.restore(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{main, child} {
		if now := cgroupFile(pid); now != before[pid] {
			t.Errorf("pid %d after restore: %q; want %q", pid, now, before[pid])
		}
	}
	if words(filepath.Join(l.v2.mount, "cgroup.controllers"))[cpuController] {
		return // the host's v2 tree enforces budgets: TestAttachBudgetLimitsAndMovesBack covers it
	}
	_, err = attachBudget(l, main, Budget{CPUs: 1})
	if err == nil || !strings.Contains(err.Error(), "cpu controller is not available") {
		t.Fatalf("attachBudget with --cpus on a v2 tree without the cpu controller = %v; want it refused", err)
	}
	t.Log(err)
	for _, pid := range []int{main, child} {
		if now := cgroupFile(pid); now != before[pid] {
			t.Errorf("pid %d after the refusal: %q; want %q", pid, now, before[pid])
		}
	}
}

// TestAttachBudgetV2OtherProcesses refuses to budget a service whose v2
// group holds another process: cgroup v2 allows no process in a group
// whose controllers its children use. It uses whichever controller the
// tree has (hugetlb on a hybrid host's unified tree) for the rule.
func TestAttachBudgetV2OtherProcesses(t *testing.T) {
	l, err := unifiedLayout("/sys/fs/cgroup")
	if err != nil {
		if l, err = unifiedLayout("/sys/fs/cgroup/unified"); err != nil {
			t.Skip(labtest.SkipMessage(labtest.SkipHost, "cgroup", "no cgroup2 tree mounted"))
		}
	}
	ctl := ""
	for c := range words(filepath.Join(l.v2.mount, "cgroup.controllers")) {
		ctl = c
	}
	if ctl == "" {
		t.Skip(labtest.SkipMessage(labtest.SkipHost, "cgroup", "the v2 tree has no controller to enable"))
	}
	root := l.v2.mount
	if !words(filepath.Join(root, "cgroup.subtree_control"))[ctl] {
		if err := os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("+"+ctl), 0o644); err != nil {
			t.Fatalf("enabling %s in %s: %v", ctl, root, err)
		}
		t.Cleanup(func() { os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("-"+ctl), 0o644) })
	}
	shared := filepath.Join(root, fmt.Sprintf("perflab-test-shared-%d", os.Getpid()))
	if err := os.Mkdir(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	main, _ := startTree(t, 1)
	other := exec.Command("sleep", "300")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		other.Process.Kill()
		other.Wait()
		restoreDir(shared, func(int, string) string { return root })
	})
	var w procWalker
	for _, pid := range append(w.tree(main, nil), other.Process.Pid) {
		if err := os.WriteFile(filepath.Join(shared, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := cgroupFile(main)
	m, err := moveIn(l, main, Budget{}, attachName(main))
	if err != nil {
		t.Fatal(err)
	}
	err = m.enableControllers([]string{ctl})
	if err == nil || !strings.Contains(err.Error(), strconv.Itoa(other.Process.Pid)+" (sleep)") || !strings.Contains(err.Error(), "allows no process") {
		t.Errorf("enabling %s in a group that holds another process = %v; want the rule and the process named", ctl, err)
	}
	t.Log(err)
	if err := m.restore(); err != nil {
		t.Fatal(err)
	}
	if now := cgroupFile(main); now != before {
		t.Errorf("pid %d after restore: %q; want %q", main, now, before)
	}
}

// TestCleanupStaleMovesAttachedBack finds the budget group of a perflab
// that died before Stop and moves its processes back into the group's
// parent, alive, instead of killing them as a launched service's.
func TestCleanupStaleMovesAttachedBack(t *testing.T) {
	l := detectLayout()
	if l.none() {
		t.Skip(labtest.SkipMessage(labtest.SkipHost, "cgroup", "no cgroup hierarchy mounted"))
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	main, child := startTree(t, 1)
	before := map[int]string{main: cgroupFile(main), child: cgroupFile(child)}
	name := attachMark + fmt.Sprintf("helper-%d-cafe", dead.Process.Pid)
	m, err := moveIn(l, main, Budget{CPUs: 0.5}, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.restore() })
	if !strings.Contains(cgroupFile(main), name) {
		t.Fatalf("pid %d is not in the group: %q", main, cgroupFile(main))
	}
	if err := cleanupStale(l); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{main, child} {
		if !pidAlive(pid) {
			t.Fatalf("CleanupStale killed pid %d of an attached service", pid)
		}
		if now := cgroupFile(pid); now != before[pid] {
			t.Errorf("pid %d after CleanupStale: %q; want %q", pid, now, before[pid])
		}
	}
	for _, d := range m.grp.dirs {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("the stale group %s survives CleanupStale", d)
		}
	}
}
