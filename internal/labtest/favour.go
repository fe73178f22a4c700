package labtest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Favour moves the test process into a CPU cgroup of its own with the
// highest weight (cpu.shares 262144 on v1, cpu.weight 10000 on v2) until
// the test ends; the cgroups perflab makes for what it launches are made
// under it, and inherit its weight. On a machine busy with other work at
// the default weight (and the kernel's autogroups, one share per session
// however many threads it runs), a program launched by the test then gets
// the CPUs it can use, so what a test compares is the program, not the
// machine's load. It skips the test when the host has no CPU cgroup that
// can be made (not root, cgroup v2 without the cpu controller).
func Favour(t testing.TB) {
	t.Helper()
	RequireRoot(t, "favouring the test process needs its own cgroup")
	mount, own, v2, err := cpuCgroup()
	if err != nil {
		t.Skipf("cannot favour the test process: %v", err)
	}
	dir := filepath.Join(mount, own, fmt.Sprintf("favoured-%d", os.Getpid()))
	file, weight := "cpu.shares", "262144"
	if v2 {
		file, weight = "cpu.weight", "10000"
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot favour the test process: %v", err)
	}
	back := filepath.Join(mount, own, "cgroup.procs")
	pid := []byte(strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(filepath.Join(dir, file), []byte(weight), 0o644); err != nil {
		os.Remove(dir)
		t.Skipf("cannot favour the test process: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), pid, 0o644); err != nil {
		os.Remove(dir)
		t.Skipf("cannot favour the test process: %v", err)
	}
	t.Cleanup(func() {
		if err := os.WriteFile(back, pid, 0o644); err != nil {
			t.Errorf("moving the test process back to its cgroup: %v", err)
		}
		if err := os.Remove(dir); err != nil {
			t.Errorf("removing the favoured cgroup: %v", err)
		}
	})
}

// cpuCgroup is where the CPU controller is mounted and the test process's
// cgroup under it.
func cpuCgroup() (mount, own string, v2 bool, err error) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return "", "", false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "cpu" {
				return "/sys/fs/cgroup/" + parts[1], parts[2], false, nil
			}
		}
		if parts[0] == "0" && parts[1] == "" {
			own = parts[2]
		}
	}
	if own == "" {
		return "", "", false, fmt.Errorf("no cpu controller in /proc/self/cgroup")
	}
	ctl, err := os.ReadFile(filepath.Join("/sys/fs/cgroup", own, "cgroup.subtree_control"))
	if err != nil || !strings.Contains(string(ctl), "cpu") {
		return "", "", false, fmt.Errorf("cgroup v2 without the cpu controller for the test's children")
	}
	return "/sys/fs/cgroup", own, true, nil
}
