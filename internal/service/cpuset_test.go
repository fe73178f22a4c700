package service

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestParseCPUList(t *testing.T) {
	for in, want := range map[string]string{"1": "1", "0-3": "0-3", "3,1,2": "1-3", "0-1,4, 6-7": "0-1,4,6-7", "2,2": "2"} {
		got, err := ParseCPUList(in)
		if err != nil || got.String() != want {
			t.Errorf("ParseCPUList(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "a", "-1", "3-1", "1,,2", "0-", "9000", "1.5"} {
		if _, err := ParseCPUList(bad); err == nil {
			t.Errorf("ParseCPUList(%q): want an error", bad)
		}
	}
	if got := (CPUSet{0, 1, 2}).Intersect(CPUSet{2, 3}); got.String() != "2" {
		t.Errorf("Intersect = %v", got)
	}
}

func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0", "0-3,8", "1,1", "3-1", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCPUList(s)
		if err != nil {
			return
		}
		again, err := ParseCPUList(c.String())
		if err != nil || again.String() != c.String() || len(c) == 0 {
			t.Errorf("%q -> %v -> %v, %v", s, c, again, err)
		}
	})
}

// allowed reads the CPUs a process may run on from /proc/PID/status.
func allowed(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatal("no Cpus_allowed_list")
	return ""
}

func lastUsable(t *testing.T) CPUSet {
	t.Helper()
	usable, err := UsableCPUs()
	if err != nil || len(usable) < 2 {
		t.Skipf("needs 2 usable CPUs (have %v, %v)", usable, err)
	}
	return usable[len(usable)-1:]
}

// TestServiceCPUs launches a service (and a child it forks) on one CPU:
// through a cgroup cpuset where the host has one, else by affinity with a
// warning; the cpuset group goes away with the service.
func TestServiceCPUs(t *testing.T) {
	cpus := lastUsable(t)
	v2, v2err := unifiedLayout("/sys/fs/cgroup/unified")
	if v2err != nil {
		v2, v2err = unifiedLayout("/sys/fs/cgroup")
	}
	for _, tc := range []struct {
		name string
		l    layout
		skip error
	}{{"host", detectLayout(), nil}, {"v2", v2, v2err}, {"none", layout{}, nil}} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.skip != nil {
				t.Skip("no cgroup2 tree mounted")
			}
			p := launchWith(t, LaunchConfig{Command: []string{"sh", "-c", "sleep 60 & sleep 60"}, Budget: Budget{CPUSet: cpus}, Name: "cpuset"}, tc.l)
			for _, pid := range p.PIDs() {
				if got := allowed(t, pid); got != cpus.String() {
					t.Errorf("process %d may run on CPUs %s; want %s", pid, got, cpus)
				}
			}
			dir := p.CPUSetDir()
			t.Logf("cpuset dir %q, warnings %q", dir, p.Warnings())
			switch {
			case dir != "":
				b, err := os.ReadFile(filepath.Join(dir, "cpuset.cpus"))
				if err != nil || strings.TrimSpace(string(b)) != cpus.String() {
					t.Errorf("%s/cpuset.cpus = %q, %v; want %s", dir, b, err, cpus)
				}
			case len(p.Warnings()) == 0 || !strings.Contains(strings.Join(p.Warnings(), "\n"), "applied as the service's CPU affinity only"):
				if tc.name != "none" {
					t.Errorf("no cpuset and no warning: %q", p.Warnings())
				}
			}
			if err := p.Stop(0); err != nil {
				t.Fatal(err)
			}
			if dir != "" {
				if _, err := os.Stat(dir); err == nil {
					t.Errorf("cpuset group %s survives Stop", dir)
				}
			}
		})
	}
}

// TestPinSelf confines every thread of this process and gives each its
// affinity back.
func TestPinSelf(t *testing.T) {
	cpus := lastUsable(t)
	var before unix.CPUSet
	if err := unix.SchedGetaffinity(0, &before); err != nil {
		t.Fatal(err)
	}
	restore, err := PinSelf(cpus)
	if err != nil {
		t.Fatal(err)
	}
	var w procWalker
	tids := w.listDir("/proc/self/task", nil)
	for _, tid := range tids {
		var s unix.CPUSet
		if unix.SchedGetaffinity(tid, &s) == nil && fromUnix(&s).String() != cpus.String() {
			t.Errorf("thread %d may run on %v; want %s", tid, fromUnix(&s), cpus)
		}
	}
	restore()
	for _, tid := range tids {
		var s unix.CPUSet
		if unix.SchedGetaffinity(tid, &s) == nil && s != before {
			t.Errorf("thread %d kept %v after restore; want %v", tid, fromUnix(&s), fromUnix(&before))
		}
	}
}
