package ownership

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"google.golang.org/protobuf/types/known/structpb"
)

// protobufVersion is the version go.mod requires.
const protobufVersion = "v1.36.12"

// buildProtosvc builds testdata/protosvc, a service formatting protobuf
// messages with prototext.
func buildProtosvc(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "protosvc")
	out, err := exec.Command("go", "build", "-o", bin, "./testdata/protosvc").CombinedOutput()
	if err != nil {
		t.Fatalf("go build ./testdata/protosvc: %v\n%s", err, out)
	}
	return bin
}

// TestGoBinary reads a real Go binary's build information and classifies
// every function of its symbol table as perf would name it: the main
// module's code is the user's, protobuf a dependency with its version,
// fmt the standard library, the runtime and its assembly the runtime.
func TestGoBinary(t *testing.T) {
	bin := buildProtosvc(t)
	b, mods, err := InspectBinary(bin)
	if err != nil {
		t.Fatal(err)
	}
	if b.Lang != LangGo || !b.Symbols || b.FramePointers != FramePointersYes || !strings.HasPrefix(b.GoVersion, "go1.") {
		t.Errorf("binary %+v", b)
	}
	var main, proto *Module
	for i := range mods {
		switch mods[i].Path {
		case "perflab":
			main = &mods[i]
		case "google.golang.org/protobuf":
			proto = &mods[i]
		}
	}
	if main == nil || !main.User || proto == nil || proto.User || proto.Version != protobufVersion {
		t.Fatalf("modules %+v: want perflab as the main module, protobuf %s a dependency", mods, protobufVersion)
	}
	m := mustNew(t, Spec{Runtime: LangGo, Modules: mods, Binaries: []Binary{b}})
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	syms, err := ef.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC {
			continue
		}
		c := m.Classify(Frame{Func: s.Name, File: bin, Binary: bin})
		want, ok := goSymbolWant(s.Name)
		if !ok {
			continue
		}
		seen[want.String()] = true
		if c.Kind != want {
			t.Errorf("%s: %v, want %v", s.Name, c.Kind, want)
		}
		if want == Dependency && (c.Package != "google.golang.org/protobuf" || c.Version != protobufVersion) {
			t.Errorf("%s: %s %s, want protobuf %s", s.Name, c.Package, c.Version, protobufVersion)
		}
	}
	for _, k := range []Kind{User, Dependency, Std, Runtime} {
		if !seen[k.String()] {
			t.Errorf("no %v symbol in %s", k, bin)
		}
	}
	if c := m.Classify(Frame{Func: "main.logResponse", File: bin, Binary: bin}); c.Kind != User {
		t.Errorf("main.logResponse: %v", c.Kind)
	}
}

// goSymbolWant is what a Go binary's function symbol must be classified
// as, by its name's prefix; ok is false for names the test does not judge.
func goSymbolWant(name string) (Kind, bool) {
	switch {
	case strings.HasPrefix(name, "main."):
		return User, true
	case strings.HasPrefix(name, "google.golang.org/protobuf/"):
		return Dependency, true
	case strings.HasPrefix(name, "runtime.") || strings.HasPrefix(name, "internal/runtime/") || strings.HasPrefix(name, "expandAVX512_") ||
		name == "memeqbody" || name == "indexbytebody" || strings.HasPrefix(name, "gcWriteBarrier"):
		return Runtime, true
	case strings.HasPrefix(name, "fmt.") || strings.HasPrefix(name, "net/http.") || strings.HasPrefix(name, "slices."):
		return Std, true
	}
	return 0, false
}

// TestGoProfileCharge takes a real CPU profile (runtime/pprof) of this
// test binary logging protobuf messages through fmt.Fprintln, and checks
// that each sample in protobuf is charged to the logging function, with
// protobuf (not fmt, which it went through) named as the library.
func TestGoProfileCharge(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, mods, err := InspectBinary(exe)
	if err != nil {
		t.Fatal(err)
	}
	m := mustNew(t, Spec{Runtime: LangGo, Modules: mods, Binaries: []Binary{b}})
	p := profileWhile(t, 300*time.Millisecond, func() { logProto(io.Discard, protoMessage()) })
	if bins := ProfileBinaries(p); len(bins) == 0 || bins[0] != exe {
		t.Errorf("the profile's binaries %q, want %s first", bins, exe)
	}
	c := m.ClassifyProfile(p)
	charged := 0
	for _, s := range p.Sample {
		if !sampleIn(s, "google.golang.org/protobuf/") || !sampleIn(s, "ownership.logProto") {
			continue
		}
		ch := c.Charge(s)
		if ch.Owner.Location < 0 {
			t.Errorf("protobuf sample without an owner: %v", frames(s))
			continue
		}
		owner := s.Location[ch.Owner.Location].Line[ch.Owner.Line].Function.Name
		if !strings.HasSuffix(owner, "ownership.logProto") || ch.LibraryClass.Package != "google.golang.org/protobuf" || ch.LibraryClass.Version != protobufVersion {
			t.Errorf("protobuf sample charged to %s, library %+v", owner, ch.LibraryClass)
		}
		charged++
	}
	if charged == 0 {
		t.Errorf("no sample in protobuf under logProto among %d samples", len(p.Sample))
	}
	if d := c.Depth(p, 1); !d.Verdict.Reach {
		t.Errorf("Go stacks reach user code; verdict %+v", d.Verdict)
	}
}

// logProto logs msg as text, as protosvc's handler does.
func logProto(w io.Writer, msg *structpb.Struct) {
	fmt.Fprintln(w, msg)
}

func protoMessage() *structpb.Struct {
	items := make([]any, 20)
	for k := range items {
		items[k] = map[string]any{"id": float64(k), "name": fmt.Sprintf("item \"%d\"\n", k)}
	}
	s, err := structpb.NewStruct(map[string]any{"items": items})
	if err != nil {
		panic(err)
	}
	return s
}

// profileWhile runs f repeatedly under the CPU profiler until the
// process has used cpu of CPU time (bounded by a minute of wall time, so
// a busy machine only makes it slower).
func profileWhile(t *testing.T, cpu time.Duration, f func()) *profile.Profile {
	t.Helper()
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		t.Skipf("CPU profiler busy: %v", err)
	}
	start := processCPU()
	deadline := time.Now().Add(time.Minute)
	for processCPU()-start < cpu && time.Now().Before(deadline) {
		for i := 0; i < 20; i++ {
			f()
		}
	}
	pprof.StopCPUProfile()
	p, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sampleIn reports whether a function of s has a name containing sub.
func sampleIn(s *profile.Sample, sub string) bool {
	for _, loc := range s.Location {
		for _, ln := range loc.Line {
			if strings.Contains(ln.Function.Name, sub) {
				return true
			}
		}
	}
	return false
}
