// Package labtest holds helpers for perflab's tests that start real parts:
// free loopback addresses, the test services of testdata/services built with
// the go command, and skips with a reason when the machine lacks something.
// Only _test.go files import it.
package labtest

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// FreeAddr returns a loopback address with a port nobody listens on now.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// BuildService builds the test service testdata/services/NAME into a
// temporary directory and returns the binary's path.
func BuildService(t testing.TB, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	out, err := exec.Command("go", "build", "-o", bin, "perflab/testdata/services/"+name).CombinedOutput()
	if err != nil {
		t.Fatalf("go build testdata/services/%s: %v\n%s", name, err, out)
	}
	return bin
}

// RequireRoot skips the test unless it runs as root (cgroups, perf).
func RequireRoot(t testing.TB, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skipf("needs root: %s", why)
	}
}
