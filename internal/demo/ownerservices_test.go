package demo

// Smoke tests of the services whose planted cost hides from a profile's
// owner rules: javapattern (a Pattern compiled per call, in a JVM) and
// nodeinline (a hot loop whose helper V8 inlines). Both modes answer the
// same; buggy costs more CPU per request, measured side by side.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
)

// cpuPerRequest GETs url warm times, then n times, and returns the CPU the
// process pid used per request over those n.
func cpuPerRequest(t *testing.T, pid int, url string, warm, n int) time.Duration {
	t.Helper()
	for range warm {
		get(t, url)
	}
	before := childCPU(t, pid)
	for range n {
		get(t, url)
	}
	return (childCPU(t, pid) - before) / time.Duration(n)
}

// TestServiceJavapattern compiles Server.java with javac into a temporary
// directory, starts it with `java -cp DIR Server` in both modes, and checks
// that the answers agree and that compiling the Pattern per call costs at
// least twice the CPU per request of compiling it once (the planted cost
// is several times that; the JIT compiler's threads and the server's own
// work add to both).
func TestServiceJavapattern(t *testing.T) {
	javac := labtest.NeedTool(t, "javac", "")
	java := labtest.NeedTool(t, "java", "")
	classes := t.TempDir()
	if out, err := exec.Command(javac, "-d", classes, "../../testdata/services/javapattern/Server.java").CombinedOutput(); err != nil {
		t.Fatalf("javac javapattern/Server.java: %v\n%s", err, out)
	}
	var bodies []string
	cpu := map[string]time.Duration{}
	for _, mode := range []string{"buggy", "fixed"} {
		p := startKept(t, "", false, java, "-cp", classes, "Server", "--addr", "127.0.0.1:0", "--mode", mode)
		b := string(get(t, p.url+"/summarize?doc=5"))
		bodies = append(bodies, b)
		if lines := strings.Count(b, "=1\n"); !strings.HasPrefix(b, "SKU-") || lines != 3 {
			t.Errorf("javapattern %s /summarize?doc=5: %q; want 3 lines SKU-NAME=1", mode, b)
		}
		if code, _, _ := fetch(t, "GET", p.url+"/summarize?doc=64", ""); code != 400 {
			t.Errorf("javapattern %s /summarize?doc=64: %d; want 400", mode, code)
		}
		cpu[mode] = cpuPerRequest(t, p.cmd.Process.Pid, p.url+"/summarize?doc=5", 200, 200)
		p.stop(t)
	}
	if bodies[0] != bodies[1] {
		t.Errorf("javapattern: buggy and fixed answer differently: %q, %q", bodies[0], bodies[1])
	}
	t.Logf("javapattern CPU per request: buggy %v, fixed %v", cpu["buggy"], cpu["fixed"])
	if cpu["buggy"] < 2*cpu["fixed"] {
		t.Errorf("javapattern CPU per request: buggy %v, fixed %v; want buggy at least twice fixed", cpu["buggy"], cpu["fixed"])
	}
}

// TestServiceNodeinline checks that nodeinline's lines are where its
// README row says (the declaration of summarize on line 22, its hot loop on
// line 26), that V8 inlines score into summarize once the service is hot,
// and that the modes agree, buggy costing at least twice fixed's CPU.
func TestServiceNodeinline(t *testing.T) {
	node := labtest.NeedTool(t, "node", "")
	script, err := filepath.Abs("../../testdata/services/nodeinline/server.js")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	for n, want := range map[int]string{22: "function summarize(items) {", 26: "total += score(items[i]) / round;"} {
		if got := strings.TrimSpace(lines[n-1]); got != want {
			t.Errorf("nodeinline server.js:%d is %q; want %q (the README names the line)", n, got, want)
		}
	}
	var bodies []string
	cpu := map[string]time.Duration{}
	for _, mode := range []string{"buggy", "fixed"} {
		p := startKept(t, "", false, node, "--trace-turbo-inlining", script, "--addr", "127.0.0.1:0", "--mode", mode)
		bodies = append(bodies, string(get(t, p.url+"/summary")))
		if code, _, _ := fetch(t, "GET", p.url+"/nope", ""); code != 404 {
			t.Errorf("nodeinline %s /nope: %d; want 404", mode, code)
		}
		cpu[mode] = cpuPerRequest(t, p.cmd.Process.Pid, p.url+"/summary", 100, 200)
		if code := p.stop(t); code != 0 {
			t.Errorf("nodeinline %s exit code %d after SIGTERM; stderr: %s", mode, code, p.stderr)
		}
		if mode == "buggy" && !inlinedInto(p.out.String(), "score", "summarize") {
			t.Errorf("nodeinline: V8 did not inline score into summarize after 300 requests:\n%.2000s", p.out)
		}
	}
	if bodies[0] != bodies[1] || bodies[0] != "17250243\n" {
		t.Errorf("nodeinline /summary: %q; want both \"17250243\"", bodies)
	}
	t.Logf("nodeinline CPU per request: buggy %v, fixed %v", cpu["buggy"], cpu["fixed"])
	if cpu["buggy"] < 2*cpu["fixed"] {
		t.Errorf("nodeinline CPU per request: buggy %v, fixed %v; want buggy at least twice fixed", cpu["buggy"], cpu["fixed"])
	}
}

// inlinedInto reports whether node's --trace-turbo-inlining output has a
// line "Inlining ... <SharedFunctionInfo callee>} into ... <SharedFunctionInfo caller>}".
func inlinedInto(trace, callee, caller string) bool {
	for _, l := range strings.Split(trace, "\n") {
		before, after, ok := strings.Cut(l, "} into ")
		if ok && strings.HasPrefix(l, "Inlining ") && strings.HasSuffix(before, "<SharedFunctionInfo "+callee+">") &&
			strings.Contains(after, "<SharedFunctionInfo "+caller+">}") {
			return true
		}
	}
	return false
}
