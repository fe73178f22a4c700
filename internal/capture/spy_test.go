package capture

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPySpyRecord(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("py-spy"); err != nil {
		t.Skip("py-spy not installed (pip install py-spy)")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	script := filepath.Join(t.TempDir(), "busy.py")
	// The loop ends by itself after 20 s if the test fails to kill it.
	src := "import time\ndef perflab_py_hot(n):\n    s = 0\n    for i in range(n): s += i * i\n    return s\n" +
		"end = time.time() + 20\nwhile time.time() < end: perflab_py_hot(100000)\n"
	if err := writeFile(script, src); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, script)
	startBusy(t, cmd)
	time.Sleep(300 * time.Millisecond)
	p, err := PySpyRecord(context.Background(), cmd.Process.Pid, 1, 100)
	if err != nil {
		t.Fatalf("PySpyRecord: %v", err)
	}
	if n := totalSamples(p.Sample); n < 10 || !hasFunction(p, "perflab_py_hot") {
		t.Fatalf("py-spy profile: %d samples, perflab_py_hot found: %t; want both", n, hasFunction(p, "perflab_py_hot"))
	}
	if err := p.CheckValid(); err != nil {
		t.Errorf("py-spy profile invalid: %v", err)
	}
	_, err = PySpyRecord(context.Background(), 1<<22, 1, 100)
	if !errors.Is(err, ErrProcessGone) {
		t.Errorf("PySpyRecord(missing pid) = %v; want ErrProcessGone", err)
	}
}

func TestSpyMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := PySpyRecord(context.Background(), 1, 1, 100)
	if !errors.Is(err, ErrToolMissing) || !strings.Contains(err.Error(), "py-spy not found: pip install py-spy to get Python frames") {
		t.Errorf("PySpyRecord without py-spy = %v; want the install hint", err)
	}
	_, err = RbSpyRecord(context.Background(), 1, 1, 100)
	if !errors.Is(err, ErrToolMissing) || !strings.Contains(err.Error(), "rbspy not found") {
		t.Errorf("RbSpyRecord without rbspy = %v; want the install hint", err)
	}
}

func TestRbSpyRecord(t *testing.T) {
	if _, err := exec.LookPath("rbspy"); err != nil {
		t.Skip("rbspy not installed (cargo install rbspy)")
	}
	rb, err := exec.LookPath("ruby")
	if err != nil {
		t.Skip("ruby not installed")
	}
	home := t.TempDir() // where rbspy would keep a copy of each recording
	t.Setenv("HOME", home)
	cmd := exec.Command(rb, "-e", "def perflab_rb_hot; s = 0; 100000.times { |i| s += i }; s; end; t = Time.now + 20; perflab_rb_hot while Time.now < t")
	startBusy(t, cmd)
	time.Sleep(300 * time.Millisecond)
	p, err := RbSpyRecord(context.Background(), cmd.Process.Pid, 1, 100)
	if err != nil {
		t.Fatalf("RbSpyRecord: %v", err)
	}
	if !hasFunction(p, "perflab_rb_hot") {
		t.Fatalf("rbspy profile of %d samples lacks perflab_rb_hot", totalSamples(p.Sample))
	}
	if entries, err := os.ReadDir(filepath.Join(home, ".cache", "rbspy")); err == nil {
		t.Errorf("rbspy left %d recordings in ~/.cache/rbspy; want them in the temporary directory only", len(entries))
	}
}
