package ktrace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"golang.org/x/sys/unix"

	"perflab/internal/labtest"
)

func init() {
	helpers["start"] = startSelfHelper
}

// startSelfHelper starts a session on itself and prints whether Start failed
// with ErrUnavailable, and the error.
func startSelfHelper() error {
	s, err := Start(Config{PIDs: []int{os.Getpid()}})
	if err == nil {
		return s.Close()
	}
	fmt.Printf("unavailable=%v %v\n", errors.Is(err, ErrUnavailable), err)
	return nil
}

// Start in a process that is not root fails with ErrUnavailable, saying so.
func TestStartNotRoot(t *testing.T) {
	labtest.RequireRoot(t, "switching to another user")
	setpriv := labtest.NeedTool(t, "setpriv", "")
	// A copy of the test binary that user nobody can run.
	dir, err := os.MkdirTemp("", "ktrace-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "ktrace.test")
	if err := copyFile(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
		bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), "KTRACE_HELPER=start")
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.HasPrefix(string(out), "unavailable=true ") || !strings.Contains(string(out), "not root (uid 65534)") {
		t.Errorf("Start as nobody: %s; want ErrUnavailable saying not root", out)
	}
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// refuse replaces the programs named with one the verifier refuses: it
// reads far past its arguments.
func refuse(spec *ebpf.CollectionSpec, names ...string) {
	for _, n := range names {
		spec.Programs[n].Instructions = asm.Instructions{
			asm.LoadMem(asm.R0, asm.R1, 4096, asm.DWord),
			asm.Return(),
		}
	}
}

// A program the kernel refuses costs its measures only, each saying why;
// when it refuses them all, Start fails with the verifier's reason.
func TestStartRefusedProgram(t *testing.T) {
	labtest.RequireRoot(t, "loading kernel programs")
	spec, err := loadSpec()
	if err != nil {
		t.Fatal(err)
	}
	refuse(spec, "on_fork")
	s, err := start(spec, Config{PIDs: []int{os.Getpid()}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tot := read(t, s)
	why := tot.Unmeasured[Children]
	t.Logf("forked processes not measured: %s", why)
	if !strings.HasPrefix(why, "on_fork (tp_btf/sched_process_fork): the kernel's verifier refused it: ") ||
		!strings.Contains(why, "invalid bpf_context access") {
		t.Errorf("forked processes: %q, want on_fork refused by the verifier, with its reason", why)
	}
	if _, ok := tot.Unmeasured[OnCPU]; ok || len(tot.Unmeasured) != 3 { // and stacks and backlog: not asked for
		t.Errorf("unmeasured: %v, want forked processes, and stacks and backlog not asked for", tot.Unmeasured)
	}

	spec, err = loadSpec()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range programs {
		refuse(spec, p.name)
	}
	_, err = start(spec, Config{PIDs: []int{os.Getpid()}})
	t.Logf("all refused: %v", err)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "the kernel's verifier refused it") {
		t.Errorf("Start with every program refused: %v, want ErrUnavailable with the verifier's reason", err)
	}
}

// A full map counts what it could not hold: here the connection table holds
// one peer, and a second is dropped, not lost silently.
func TestFullMapCountsDrops(t *testing.T) {
	labtest.RequireRoot(t, "loading kernel programs")
	spec, err := loadSpec()
	if err != nil {
		t.Fatal(err)
	}
	spec.Maps["flowslots"].MaxEntries = 1
	s, err := start(spec, Config{PIDs: []int{os.Getpid()}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range 2 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		ln.Close()
	}
	tot := read(t, s)
	if len(tot.Outbound) != 1 || tot.Dropped.Flows == 0 {
		t.Errorf("%d peers kept, %d flow records dropped; want 1 kept and drops counted", len(tot.Outbound), tot.Dropped.Flows)
	}
}

func TestPrecheckNoBTF(t *testing.T) {
	err := precheck(func(name string) (os.FileInfo, error) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: unix.ENOENT}
	})
	want := "kernel tracing unavailable: no BTF at /sys/kernel/btf/vmlinux (a kernel built without CONFIG_DEBUG_INFO_BTF): no such file or directory"
	if !errors.Is(err, ErrUnavailable) || err.Error() != want {
		t.Errorf("precheck without BTF: %v\nwant %s", err, want)
	}
}

func TestReason(t *testing.T) {
	refused := &ebpf.VerifierError{Cause: unix.EACCES, Log: []string{"0: (79) r0 = *(u64 *)(r1 +4096)", "invalid bpf_context access off=4096 size=8"}}
	for _, c := range []struct {
		err  error
		euid int
		want string
	}{
		{fmt.Errorf("map targets: %w", unix.EPERM), 1000, "not root (uid 1000): loading kernel programs needs root, or CAP_BPF and CAP_PERFMON"},
		{fmt.Errorf("map targets: %w", unix.EPERM), 0, "not permitted although root (a locked-down kernel, or a security module): map targets: operation not permitted"},
		{fmt.Errorf("program on_fork: %w", refused), 0, "the kernel's verifier refused it: : permission denied: 0: (79) r0 = *(u64 *)(r1 +4096): invalid bpf_context access off=4096 size=8"},
		{fmt.Errorf("attach: %w", ebpf.ErrNotSupported), 0, "not supported by this kernel: attach: not supported"},
		{errors.New("no such program"), 0, "no such program"},
	} {
		if got := reason(c.err, c.euid); got != c.want {
			t.Errorf("reason(%v, %d) = %q\nwant %q", c.err, c.euid, got, c.want)
		}
	}
}
