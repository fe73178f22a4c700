package runfmt

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

func TestNewEnvironment(t *testing.T) {
	e := NewEnvironment("v1.2.3")
	host, _ := os.Hostname()
	if e.PerflabVersion != "v1.2.3" || e.HostCores != runtime.NumCPU() || e.Hostname != host {
		t.Errorf("NewEnvironment = %+v; want version v1.2.3, %d cores, host %q", e, runtime.NumCPU(), host)
	}
	release, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		t.Skipf("no /proc to compare the kernel release with: %v", err)
	}
	if want := strings.TrimSpace(string(release)); e.Kernel != want {
		t.Errorf("Kernel = %q; want %q (uname -r)", e.Kernel, want)
	}
}
