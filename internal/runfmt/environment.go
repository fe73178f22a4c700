package runfmt

import (
	"os"
	"runtime"
	"syscall"
)

// NewEnvironment describes this machine for a run of perflab version:
// its host name, kernel release and cores. The caller adds what it knows
// of the rest: the Go toolchain, the cgroup version, the commit measured.
func NewEnvironment(version string) Environment {
	e := Environment{PerflabVersion: version, HostCores: runtime.NumCPU(), Kernel: kernelRelease()}
	e.Hostname, _ = os.Hostname()
	return e
}

// kernelRelease is uname -r; "" when uname fails.
func kernelRelease() string {
	var u syscall.Utsname
	if syscall.Uname(&u) != nil {
		return ""
	}
	b := make([]byte, 0, len(u.Release))
	for _, c := range u.Release { // int8 or uint8, by architecture
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return string(b)
}
