package profiling

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/capture"
	"perflab/internal/labtest"
	"perflab/internal/service"
)

// busy starts name (python3, ruby) with args, a program that prints "hot"
// once it loops in a hot function, and returns its pid once it does; the
// process is killed when the test ends. It skips without name or tool.
func busy(t *testing.T, tool, name string, args ...string) int {
	t.Helper()
	labtest.NeedTool(t, tool, "")
	bin := labtest.NeedTool(t, name, "")
	cmd := exec.Command(bin, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	// The recording starts once the program is in its loop (it says so),
	// not after a guess at its start-up time.
	hot := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "hot" {
				hot <- true
				return
			}
		}
		hot <- false
	}()
	select {
	case ok := <-hot:
		if !ok {
			t.Fatalf("%s ended its output without printing hot", name)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("%s printed no hot line within 20 s", name)
	}
	return cmd.Process.Pid
}

// record records pid with pr for a second at 100 Hz.
func record(t *testing.T, pr *Profiler, pid int) *profile.Profile {
	t.Helper()
	p, _, err := pr.Recorder.Record(context.Background(), Job{Processes: []service.ProcessInfo{{PID: pid}}, Window: time.Second, Hz: 100})
	if err != nil {
		t.Fatalf("%s: %v", pr.Name, err)
	}
	return p
}

func hasFunction(p *profile.Profile, name string) bool {
	for _, f := range p.Function {
		if strings.Contains(f.Name, name) {
			return true
		}
	}
	return false
}

func TestPySpyRecord(t *testing.T) {
	t.Parallel()
	script := filepath.Join(t.TempDir(), "busy.py")
	// The loop ends by itself after 30 s if the test fails to kill it.
	src := "import time\ndef perflab_py_hot(n):\n    s = 0\n    for i in range(n): s += i * i\n    return s\n" +
		"end = time.time() + 30\nprint('hot', flush=True)\nwhile time.time() < end: perflab_py_hot(100000)\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p := record(t, &pySpy, busy(t, "py-spy", "python3", script))
	if n := sampleCount(p); n < 10 || !hasFunction(p, "perflab_py_hot") {
		t.Fatalf("py-spy profile: %d samples, perflab_py_hot found: %t; want both", n, hasFunction(p, "perflab_py_hot"))
	}
	if err := p.CheckValid(); err != nil {
		t.Errorf("py-spy profile invalid: %v", err)
	}
	_, _, err := pySpyRecorder{}.Record(context.Background(), Job{Processes: []service.ProcessInfo{{PID: 1 << 22}}, Window: time.Second, Hz: 100})
	if !errors.Is(err, capture.ErrProcessGone) {
		t.Errorf("py-spy of a missing pid: %v; want ErrProcessGone", err)
	}
}

func TestRbSpyRecord(t *testing.T) {
	home := t.TempDir() // where rbspy would keep a copy of each recording
	t.Setenv("HOME", home)
	p := record(t, &rbSpy, busy(t, "rbspy", "ruby", "-e",
		"def perflab_rb_hot; s = 0; 100000.times { |i| s += i }; s; end; $stdout.sync = true; t = Time.now + 30; puts 'hot'; perflab_rb_hot while Time.now < t"))
	if !hasFunction(p, "perflab_rb_hot") {
		t.Fatalf("rbspy profile of %d samples lacks perflab_rb_hot", sampleCount(p))
	}
	if entries, err := os.ReadDir(filepath.Join(home, ".cache", "rbspy")); err == nil {
		t.Errorf("rbspy left %d recordings in ~/.cache/rbspy; want them in the temporary directory only", len(entries))
	}
}

// TestSpiesMissing: each profiler's error without its binary says how to
// install it.
func TestSpiesMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, pr := range []*Profiler{&pySpy, &rbSpy} {
		_, _, err := pr.Recorder.Record(context.Background(), Job{Processes: []service.ProcessInfo{{PID: 1}}, Window: time.Second, Hz: 100})
		if !errors.Is(err, capture.ErrToolMissing) || !strings.Contains(err.Error(), string(pr.Name)+" is not installed: "+pr.Install) {
			t.Errorf("%s without its binary: %v; want the install hint", pr.Name, err)
		}
	}
}
