package service

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"perflab/internal/labtest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestUnifiedHierarchy runs the cgroup v2 code on whatever v2 tree the host
// has: /sys/fs/cgroup itself on a v2 host, /sys/fs/cgroup/unified on a
// hybrid one (which has no controllers: the budget is then reported as not
// enforced, while placement, CPU time and cleanup still work).
func TestUnifiedHierarchy(t *testing.T) {
	l, err := unifiedLayout("/sys/fs/cgroup")
	if err != nil {
		if l, err = unifiedLayout("/sys/fs/cgroup/unified"); err != nil {
			t.Skip(labtest.SkipMessage(labtest.SkipHost, "cgroup", "no cgroup2 tree mounted"))
		}
	}
	exe, _ := os.Executable()
	script := `"$0" 0.3 exit & "$0" 0.3; sleep 60`
	p, err := launch(t.Context(), LaunchConfig{Command: []string{"sh", "-c", script, exe}, Env: []string{helperEnv + "=burnfor"}, Budget: Budget{CPUs: 1}, Name: "v2"}, l)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(time.Second)
	if p.grp == nil {
		t.Skip(labtest.SkipMessage(labtest.SkipHost, "cgroup", fmt.Sprintf("cannot create a v2 group here: %v", p.Warnings())))
	}
	t.Logf("warnings: %q", p.Warnings())
	if p.Source() != "cgroup-v2" {
		t.Fatalf("Source = %s", p.Source())
	}
	dir := p.CgroupDirs()[0]
	b, _ := os.ReadFile("/proc/" + itoa(p.PID()) + "/cgroup")
	if !strings.Contains(string(b), "0::/"+filepath.Base(dir)+"\n") {
		t.Errorf("/proc/PID/cgroup = %q; want the service placed in %s from its start", b, dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "cpu.max")); err != nil {
		if len(p.Warnings()) == 0 || !strings.Contains(p.Warnings()[0], "--cpus budget is not enforced") {
			t.Errorf("no cpu controller but no warning: %q", p.Warnings())
		}
	} else if p.CPULimitCores() != 1 {
		t.Errorf("CPULimitCores = %v; want 1", p.CPULimitCores())
	}
	knownCPU(t, p, 2)
	if err := p.Stop(time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cgroup %s survives Stop", dir)
	}
}

func itoa(v int) string { return strconv.Itoa(v) }
