package capture

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// TestAddSourceLinesInlined samples a Go program with perf and names its
// lines from the binary's DWARF: the hot loop's samples are in mix, inlined
// into perflabLinesHot at the line that calls it, as a Go CPU profile
// would show them; perf alone names perflabLinesHot only, with no file and
// no line. (perflabLinesHot's caller is not checked: a Go leaf function
// keeps no frame pointer, so perf's unwinding skips it.)
func TestAddSourceLinesInlined(t *testing.T) {
	t.Parallel()
	needPerf(t)
	cmd := exec.Command(buildProgram(t, "perflines"))
	startBusy(t, cmd)
	p, _, err := recordBurner(t, cmd.Process.Pid, PerfConfig{Seconds: 60}, false)
	if err != nil {
		t.Fatalf("PerfRecord: %v", err)
	}
	if n := inlinedSamples(p); n != 0 {
		t.Fatalf("perf's own profile has %d samples at mix, inlined; want none before AddSourceLines", n)
	}
	if w := AddSourceLines(p); len(w) > 0 {
		t.Errorf("warnings %q; want none", w)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatalf("profile invalid after AddSourceLines: %v", err)
	}
	total, inlined := totalSamples(p.Sample), inlinedSamples(p)
	if inlined*2 < total {
		t.Errorf("%d of %d samples at main.mix line 16 inlined in main.perflabLinesHot line 22; want most; leaves: %v", inlined, total, leaves(p))
	}
}

// inlinedSamples counts the samples whose program leaf (the first frame
// outside the kernel: on a busy machine many samples land in the kernel,
// switching the program off a CPU) is mix's line, inlined in
// perflabLinesHot's loop.
func inlinedSamples(p *profile.Profile) int64 {
	var n int64
	for _, s := range p.Sample {
		leaf := programLeaf(s)
		if len(leaf) == 2 && is(leaf[0], "main.mix", 16) && is(leaf[1], "main.perflabLinesHot", 22) {
			n += s.Value[0]
		}
	}
	return n
}

// leaves counts the samples by their program leaf, for a failure's message.
func leaves(p *profile.Profile) map[string]int64 {
	out := map[string]int64{}
	for _, s := range p.Sample {
		var key []string
		for _, l := range programLeaf(s) {
			key = append(key, fmt.Sprintf("%s:%d", l.Function.Name, l.Line))
		}
		out[strings.Join(key, " in ")] += s.Value[0]
	}
	return out
}

// programLeaf is the lines of a sample's first location outside the
// kernel.
func programLeaf(s *profile.Sample) []profile.Line {
	for _, l := range s.Location {
		if l.Mapping == nil || !strings.HasPrefix(l.Mapping.File, "[kernel") {
			return l.Line
		}
	}
	return nil
}

func is(l profile.Line, fn string, line int64) bool {
	return l.Function.Name == fn && l.Line == line && strings.HasSuffix(l.Function.Filename, "testdata/perflines/main.go")
}

// FuzzOpenDWARF reads any file as a binary: corrupt ELF or DWARF is an
// error, never a panic, and an address looked up in what reads gives
// frames or none.
func FuzzOpenDWARF(f *testing.F) {
	f.Add([]byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x3e\x00\x01\x00\x00\x00"))
	f.Add([]byte("not an ELF file"))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "bin")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		x, err := openDWARF(path)
		if err != nil {
			return
		}
		for _, off := range []uint64{0, 0x40, 0x1000, uint64(len(b))} {
			if pc, ok := x.address(off); ok {
				_ = x.frames(pc)
			}
		}
	})
}
