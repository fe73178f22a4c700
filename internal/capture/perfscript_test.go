package capture

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// stacks returns p's samples as "leaf<-caller<-… xN" strings.
func stacks(p *profile.Profile) map[string]int64 {
	out := map[string]int64{}
	for _, s := range p.Sample {
		var names []string
		for _, l := range s.Location {
			if len(l.Line) == 0 { // unsymbolised: its binary, as pprof names it
				names = append(names, "["+filepath.Base(l.Mapping.File)+"]")
				continue
			}
			names = append(names, l.Line[0].Function.Name)
		}
		out[strings.Join(names, "<-")] += s.Value[0]
	}
	return out
}

func TestParsePerfScript(t *testing.T) {
	const in = `junk before any sample
	  deadbeef orphan_frame (/x)
Web Content 100/101  12.5:   10101010 cpu-clock: 
	  401000 std::vector<int, std::allocator<int> >::push_back(int const&)+0x10 (/usr/bin/app)
	  402000 main+0x5 (/usr/bin/app)

app 7/7 [001] 13.0: 5000000 cpu-clock:
	7f0000001000 [unknown] (/tmp/libgone.so (deleted))
	0 [unknown] ([unknown])
	ffffffff81000130 entry_SYSCALL_64+0x76 ([kernel.kallsyms])

app 7/8 13.1:
	  7f0000002000 jitted_fn (/tmp/perf-7.map)
	  7f0000002000 jitted_fn (/tmp/perf-7.map)
app 7/8 13.2: cpu-clock:
`
	p, err := ParsePerfScript(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatalf("profile invalid: %v", err)
	}
	got := stacks(p)
	want := map[string]int64{
		"std::vector<int, std::allocator<int> >::push_back(int const&)<-main": 1,
		"[libgone.so (deleted)]<-[unknown]<-entry_SYSCALL_64":                 1,
		"jitted_fn<-jitted_fn": 1,
		"":                     1,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("stack %q: %d samples, want %d (all: %v)", k, got[k], v, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("stacks %v, want %v", got, want)
	}
	var cpu int64
	for _, s := range p.Sample {
		cpu += s.Value[1]
		if s.Label["comm"][0] == "Web Content" && (s.NumLabel["pid"][0] != 100 || s.NumLabel["tid"][0] != 101) {
			t.Errorf("Web Content sample labels %v %v, want pid 100 tid 101", s.Label, s.NumLabel)
		}
	}
	if want := 10101010 + 5000000 + 2*(int64(1e9)/99); cpu != want {
		t.Errorf("total cpu %d ns, want %d", cpu, want)
	}
	for _, m := range p.Mapping {
		if m.File == "[unknown]" || m.File == "" {
			t.Errorf("mapping for unknown dso: %+v", m)
		}
	}
}

// TestParsePerfScriptRecorded parses real `perf script` output recorded on
// Debian's perf 6.1 (see testdata/perfscript): C++, Go with kernel frames,
// a JIT frame named by /tmp/perf-PID.map, python3.12 -X perf.
func TestParsePerfScriptRecorded(t *testing.T) {
	for file, fn := range map[string]string{
		"cpp.txt":        "perflab::Acc<long>::add",
		"go.txt":         "crypto/sha256.Sum256",
		"jit.txt":        "perflab_jit_spin",
		"python3.12.txt": "_PyEval_EvalFrameDefault",
	} {
		f, err := os.Open(filepath.Join("testdata/perfscript", file))
		if err != nil {
			t.Fatal(err)
		}
		p, err := ParsePerfScript(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if err := p.CheckValid(); err != nil {
			t.Errorf("%s: invalid profile: %v", file, err)
		}
		if n := totalSamples(p.Sample); n != 40 || !hasFunction(p, fn) {
			t.Errorf("%s: %d samples, %s found: %t; want 40 and true", file, n, fn, hasFunction(p, fn))
		}
	}
}

func FuzzParsePerfScript(f *testing.F) {
	files, _ := filepath.Glob("testdata/perfscript/*.txt")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		// A few samples of each: small seeds keep the fuzzer's minimising fast.
		f.Add(firstSamples(b, 3))
	}
	f.Add([]byte("a 1/2 3.0: 4 cpu-clock:\n\t1 f+0x1 ((x)\n\t2 ) ()\n"))
	f.Add([]byte(perfHeaderBlock + "a 1/2 3.0: 4 cpu-clock:\n\t1 f+0x1 (x)\n"))
	f.Add([]byte("j 7 cycles:\nff f (x)\n7f [unknown] (/lib/y.so)\n\nj 7 1.5: 2 page-faults: 10 g (x)\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePerfScript(strings.NewReader(string(data)))
		if err != nil {
			return
		}
		if err := p.CheckValid(); err != nil {
			t.Fatalf("invalid profile from %q: %v", data, err)
		}
	})
}

// firstSamples returns the first n blank-line-separated samples of b.
func firstSamples(b []byte, n int) []byte {
	parts := strings.SplitAfterN(string(b), "\n\n", n+1)
	return []byte(strings.Join(parts[:min(n, len(parts))], ""))
}

// TestParsePerfScriptDWARF parses perf script output of a recording with
// DWARF call graphs (perf record --call-graph dwarf,16384) of a Rust
// service built without frame pointers: stacks are deep, most reach the
// thread's start, the rest end where the 16 KiB copied ended
// ("[unknown]" at ffffffffffffffff) after reaching the handler.
func TestParsePerfScriptDWARF(t *testing.T) {
	f, err := os.Open("testdata/perfscript/rust-dwarf.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := ParsePerfScript(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	under := 0
	for _, s := range p.Sample {
		names := frameNames(s)
		if last := names[len(names)-1]; len(names) < 10 || last != "clone3" && last != "[unknown]" {
			t.Errorf("sample of %d frames ends in %q; want 10 or more ending in clone3 or where the copy ended", len(names), last)
		}
		if i := slices.Index(names, "axumapp::summarize"); i > 0 && i < len(names)-1 {
			under++
		}
	}
	if n := totalSamples(p.Sample); n != 23 || under == 0 {
		t.Errorf("%d samples, %d under axumapp::summarize; want 23 and some", n, under)
	}
}
