package profiling

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"perflab/internal/labtest"
	own "perflab/internal/ownership"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// TestPerfUnwinding: cargo's default release build of the Rust test
// service has no frame pointers and is unwound with DWARF; the build
// with frame pointers, and a Go binary, walk frame pointers.
func TestPerfUnwinding(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the Rust test service")
	}
	for _, fp := range []bool{false, true} {
		bin := labtest.CargoBuild(t, "axumapp", fp)
		cmd := exec.Command(bin, "--addr", "127.0.0.1:0")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		u := perfUnwinding([]service.ProcessInfo{{PID: cmd.Process.Pid, Runtime: runfmt.RuntimeNative, Exe: bin}})
		// As Go services are: their runtime is go, and perf walks frame pointers.
		g := perfUnwinding([]service.ProcessInfo{{PID: cmd.Process.Pid, Runtime: runfmt.RuntimeGo, Exe: bin}})
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		want := runfmt.UnwindDWARF
		if fp {
			want = runfmt.UnwindFramePointers
		}
		if u.how != want || g.how != runfmt.UnwindFramePointers {
			t.Errorf("%s: unwinding %+v (as a go process %+v); want %s", bin, u, g, want)
		}
		n := u.note()
		if fp != (n == "") || !fp && (!strings.Contains(n, "--call-graph dwarf,16384") || !strings.Contains(n, "force-frame-pointers=yes") || !strings.Contains(n, bin)) {
			t.Errorf("%s: note %q", bin, n)
		}
	}
}

// stackProfile is a CPU profile of one sample per stack, each a list of
// binaries leaf first, of 10 ms each.
func stackProfile(stacks ...[]string) *profile.Profile {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: runfmt.CPUSample, Unit: "nanoseconds"}}}
	maps := map[string]*profile.Mapping{}
	for _, st := range stacks {
		s := &profile.Sample{Value: []int64{1, 1e7}}
		for _, bin := range st {
			m := maps[bin]
			if m == nil && bin != "" {
				m = &profile.Mapping{ID: uint64(len(maps) + 1), File: bin}
				maps[bin] = m
				p.Mapping = append(p.Mapping, m)
			}
			loc := &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: m}
			p.Location = append(p.Location, loc)
			s.Location = append(s.Location, loc)
		}
		p.Sample = append(p.Sample, s)
	}
	return p
}

func TestModuleCPU(t *testing.T) {
	var stacks [][]string
	for i := range 20 {
		leaf := "/srv/app"
		switch {
		case i >= 17:
			leaf = "/usr/lib/libc.so.6"
		case i == 16:
			leaf = ""
		}
		stacks = append(stacks, []string{leaf, "/srv/app"})
	}
	for i := range 10 { // ten more binaries of a sample each: the rest is summed
		stacks = append(stacks, []string{"/lib/l" + string(rune('a'+i)) + ".so"})
	}
	got := moduleCPU(stackProfile(stacks...), 1)
	if len(got) != maxModules+1 || got[0].Module != "app" || got[0].Share != 0.5333 || got[0].CPUSeconds != 0.16 || got[1].Module != "libc.so.6" {
		t.Fatalf("moduleCPU: %+v", got)
	}
	var sum float64
	for _, m := range got {
		sum += m.CPUSeconds
	}
	if last := got[len(got)-1]; sum < 0.2999 || sum > 0.3001 || last.Module != "5 other modules" || last.CPUSeconds != 0.05 {
		t.Errorf("moduleCPU: %+v (sum %v); want the 30 samples' 0.3 s, the last 5 modules summed", got, sum)
	}
	if got := moduleCPU(stackProfile(), 1); got != nil {
		t.Errorf("moduleCPU of no sample: %+v", got)
	}
}

// TestSymbolsFirst: a stripped native binary's symbols come first in the
// remedy of stacks that do not reach the user's code, unless the remedy
// is already to keep them.
func TestSymbolsFirst(t *testing.T) {
	stripped := []own.Binary{{Path: "/srv/app", Lang: own.LangRust}}
	unwind := runfmt.StackReach{Fix: runfmt.FixUnwind, Lang: own.LangRust}
	if got := symbolsFirst(stripped, &unwind); got != own.LangRust {
		t.Errorf("a stripped binary under an unwinding remedy: %q; want its symbols first", got)
	}
	naming := runfmt.StackReach{Fix: runfmt.FixNaming, Lang: own.LangRust}
	if got := symbolsFirst(stripped, &naming); got != "" {
		t.Errorf("a remedy that keeps the symbols already: %q", got)
	}
	jvm := runfmt.StackReach{Fix: runfmt.FixNaming, Lang: own.LangJVM}
	if got := symbolsFirst(stripped, &jvm); got != own.LangRust {
		t.Errorf("a JVM's perf map beside a stripped binary: %q; want its symbols first", got)
	}
	for _, bins := range [][]own.Binary{{{Path: "/srv/app", Lang: own.LangRust, Symbols: true}}, {{Path: "/srv/goapp", Lang: own.LangGo}}} {
		if got := symbolsFirst(bins, &unwind); got != "" {
			t.Errorf("symbols first for %+v: %q", bins, got)
		}
	}
}
