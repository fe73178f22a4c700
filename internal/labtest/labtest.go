// Package labtest holds helpers for perflab's tests that start real parts:
// free loopback addresses, the test services of testdata/services built with
// the go command, and skips with a reason when the machine lacks something
// (skip.go: one machine-readable word that .ci/test counts); runs measured
// again while perflab says they were disturbed (Clean);
// profiles built by hand (NewProfile, NewWall) and recorded from planted
// work (RealCPUProfile, RealAllocProfile); golden files (Golden); and
// bounded waits for an event (Until, Eventually).
// Only _test.go files import it.
package labtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
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
		t.Skip(SkipMessage(SkipHost, "root", "needs root: "+why))
	}
}

// Services builds several test services of testdata/services with one go
// build (they share the compile), on first use and once per test binary.
// Call Remove from TestMain after m.Run to delete the binaries.
type Services struct {
	Names []string

	once sync.Once
	dir  string
	err  error
}

// Binary returns the path of name's executable (name must be in Names),
// building them all first; it skips the test when the go command is missing.
func (s *Services) Binary(t testing.TB, name string) string {
	t.Helper()
	goTool := NeedTool(t, "go", "building the test services needs the go command")
	s.once.Do(func() {
		if s.dir, s.err = os.MkdirTemp("", "perflab-services-"); s.err != nil {
			return
		}
		args := []string{"build", "-o", s.dir + "/"}
		for _, n := range s.Names {
			args = append(args, "perflab/testdata/services/"+n)
		}
		if out, err := exec.Command(goTool, args...).CombinedOutput(); err != nil {
			s.err = fmt.Errorf("go build test services: %v\n%s", err, out)
		}
	})
	if s.err != nil {
		t.Fatal(s.err)
	}
	return filepath.Join(s.dir, name)
}

// Remove deletes what Binary built.
func (s *Services) Remove() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// StartOrphan starts argv with env added, as a process that is not the
// test's descendant (its parent shell exits at once, so it is re-parented,
// in a session of its own): what another program on the machine looks
// like. It returns its pid and kills it at cleanup.
func StartOrphan(t testing.TB, env []string, argv ...string) int {
	t.Helper()
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = strconv.Quote(a)
	}
	sh := exec.Command("sh", "-c", strings.Join(q, " ")+" >/dev/null 2>&1 & echo $!")
	sh.Env = append(os.Environ(), env...)
	sh.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := sh.Output()
	if err != nil {
		t.Fatalf("starting %q: %v", argv, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("starting %q: pid %q: %v", argv, out, err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	return pid
}

// RefusedAddr returns a 127.0.0.1 address that refuses connections for as
// long as the test runs: a socket is bound to it and never listens. A
// port merely free (FreeAddr) can be handed to any service started while
// a load or a readiness probe still aims at it, which then gets the
// connections meant to be refused and reads them as another client's.
func RefusedAddr(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := syscall.Close(fd); err != nil {
			t.Errorf("closing the socket bound to the refused address: %v", err)
		}
	})
	// No SO_REUSEADDR: no other socket can bind the port while it is held.
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
}
