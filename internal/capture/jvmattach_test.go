package capture

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
)

func TestParseAttachReply(t *testing.T) {
	for _, c := range []struct {
		in, out string
		ok      bool
	}{
		{"0\nreturn code: 0\n", "return code: 0", true},
		{"0\n", "", true},
		{"0\nreturn code: 100\n", "return code: 100", false},
		{"101\nJVMTI agent attach failed\n", "JVMTI agent attach failed", false},
		{"", "", false},
		{"garbage\n", "", false},
	} {
		out, err := ParseAttachReply(strings.NewReader(c.in))
		if (err == nil) != c.ok || out != c.out {
			t.Errorf("ParseAttachReply(%q) = %q, %v; want %q, ok %t", c.in, out, err, c.out, c.ok)
		}
	}
}

func FuzzParseAttachReply(f *testing.F) {
	for _, s := range []string{"0\nreturn code: 0\n", "101\nerr\n", "", "x", "0\nreturn code: \n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := ParseAttachReply(strings.NewReader(s))
		if err == nil && strings.Contains(out, "return code: 1") && !strings.Contains(out, "return code: 0") {
			t.Errorf("%q: accepted an agent's error", s)
		}
	})
}

// TestJVMLoadAgent loads async-profiler into a running JVM through its
// attach socket, samples it and stops it, without jcmd.
func TestJVMLoadAgent(t *testing.T) {
	lib := labtest.NeedFile(t, "async-profiler", "/usr/local/lib/async-profiler/libasyncProfiler.so", "")
	labtest.NeedTool(t, "java", "")
	dir := t.TempDir()
	src := filepath.Join(dir, "Spin.java")
	prog := `public class Spin { public static void main(String[] a) throws Exception {
		System.out.println("ready"); long x = 0;
		for (long end = System.nanoTime() + 60_000_000_000L; System.nanoTime() < end; ) { x += spin(x); }
		System.out.println(x); }
		static long spin(long x) { for (int i = 0; i < 1000; i++) x = x * 31 + i; return x; } }`
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("java", src)
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		ready <- sc.Scan() && sc.Text() == "ready"
		for sc.Scan() {
		}
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("the JVM did not start")
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the JVM did not start within 60 s")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	began := time.Now()
	if _, err := JVMLoadAgent(ctx, cmd.Process.Pid, lib, "start,event=cpu,interval=1000000ns,threads"); err != nil {
		t.Fatal(err)
	}
	t.Logf("attached and started the agent in %v", time.Since(began))
	time.Sleep(500 * time.Millisecond) // the measurement window: the agent samples
	stacks := filepath.Join(dir, "stacks.txt")
	began = time.Now()
	if _, err := JVMLoadAgent(ctx, cmd.Process.Pid, lib, "stop,file="+stacks+",collapsed"); err != nil {
		t.Fatal(err)
	}
	t.Logf("stopped it in %v", time.Since(began))
	b, err := os.ReadFile(stacks)
	if err != nil {
		t.Fatal(err)
	}
	// The JIT may inline spin into main's loop: either names the
	// program's own code, which is what the agent must reach.
	if !strings.Contains(string(b), "Spin.spin") && !strings.Contains(string(b), "Spin.main;") {
		t.Errorf("the agent's stacks do not name Spin's methods:\n%.500s", b)
	}
	if out, err := JVMLoadAgent(ctx, cmd.Process.Pid, filepath.Join(dir, "missing.so"), "start"); err == nil {
		t.Errorf("a missing agent library was loaded: %q", out)
	} else {
		t.Logf("a missing agent library: %v", err)
	}
}
