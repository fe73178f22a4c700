package capture

import (
	"os"
	"strings"
	"testing"
)

// TestParseAsyncCollapsed parses real async-profiler 4.6 output
// (testdata/collapsed/asyncprofiler.txt: javapattern under load on JDK 17,
// options collapsed,threads,lib,ann,dot,norm): every sample names its
// thread, the compiler threads among them, and the user's method is
// reached through its callers, annotations gone.
func TestParseAsyncCollapsed(t *testing.T) {
	f, err := os.Open("testdata/collapsed/asyncprofiler.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := ParseAsyncCollapsed(f, 10_000_000, 4242)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	compiler, underLambda, interpreted := 0, 0, 0
	for _, s := range p.Sample {
		comm := s.Label["comm"]
		if len(comm) != 1 || s.NumLabel["pid"][0] != 4242 || s.NumLabel["tid"][0] == 0 {
			t.Fatalf("sample labels %v %v: want comm, pid 4242 and its tid", s.Label, s.NumLabel)
		}
		if strings.Contains(comm[0], "CompilerThre") {
			compiler++
		}
		if l := s.Label[LabelJVMLeaf]; len(l) > 0 {
			interpreted++
		}
		var names []string
		for _, loc := range s.Location {
			names = append(names, loc.Line[0].Function.Name)
		}
		joined := strings.Join(names, ";")
		if strings.Contains(joined, "_[") || strings.Contains(joined, "tid=") {
			t.Fatalf("annotation or thread left in the stack %s", joined)
		}
		if strings.Contains(joined, "Server.summarize;Server.lambda$main$1") {
			underLambda++
		}
	}
	if compiler == 0 || underLambda == 0 || interpreted == 0 || interpreted == len(p.Sample) {
		t.Errorf("%d compiler-thread samples, %d of Server.summarize under its caller, %d of %d interpreted: want some of each",
			compiler, underLambda, interpreted, len(p.Sample))
	}
	if !hasFunction(p, "CompileBroker::compiler_thread_loop") {
		t.Error("libjvm's frames lost their library prefix badly: no CompileBroker::compiler_thread_loop")
	}
}

func FuzzParseAsyncCollapsed(f *testing.F) {
	if b, err := os.ReadFile("testdata/collapsed/asyncprofiler.txt"); err == nil {
		lines := strings.SplitAfterN(string(b), "\n", 4)
		f.Add([]byte(strings.Join(lines[:min(3, len(lines))], "")))
	}
	f.Add([]byte("[C2 CompilerThre tid=12];libjvm.so`Compile::Compile;do_syscall_64_[k] 3\n[main tid=1];Server.main_[0];x_[j] 1\n"))
	f.Add([]byte("[ tid=];_[;`_[k] 9223372036854775807\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseAsyncCollapsed(strings.NewReader(string(data)), 10_000_000, 1)
		if err != nil {
			return
		}
		if err := p.CheckValid(); err != nil {
			t.Fatalf("invalid profile from %q: %v", data, err)
		}
	})
}

// TestAsyncLeafInterpreted: the Java frame nearest the leaf decides,
// passing over the JVM's own frames and the kernel's under them; another
// library's code, or a system call straight from the method, is not the
// interpreter's.
func TestAsyncLeafInterpreted(t *testing.T) {
	for line, want := range map[string]bool{
		"[w tid=1];Server.main_[0];Server.run_[0] 1":                                      true,
		"[w tid=1];Server.main_[0];libjvm.so`InterpreterRuntime::new;do_syscall_64_[k] 1": true,
		"[w tid=1];Server.main_[0];Server.run_[j] 1":                                      false,
		"[w tid=1];Server.main_[0];Server.run_[1];java.lang.Math.max_[i] 1":               false,
		"[C2 CompilerThre tid=2];libjvm.so`Compile::Compile 1":                            false,
		"[w tid=1];Server.main_[0];I2C/C2I adapters 1":                                    true,
		"[w tid=1];Server.main_[0];libnio.so`Java_sun_nio_ch_Net_accept;accept_[k] 1":     false,
		"[w tid=1];Server.main_[0];libc.so.6`memcpy 1":                                    false,
		"[w tid=1];Server.main_[0];do_syscall_64_[k] 1":                                   false,
	} {
		p, err := ParseAsyncCollapsed(strings.NewReader(line), 1, 1)
		if err != nil || len(p.Sample) != 1 {
			t.Fatalf("%q: %v", line, err)
		}
		if got := len(p.Sample[0].Label[LabelJVMLeaf]) > 0; got != want {
			t.Errorf("%q: interpreted %v, want %v", line, got, want)
		}
	}
}
