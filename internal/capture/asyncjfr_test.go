package capture

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"
)

// TestParseAsyncJFR parses a real async-profiler 4.6 recording
// (testdata/jfr/asyncprofiler.jfr: javapattern under load on JDK 17,
// start,event=cpu,interval=1001001ns,jfr): every sample names its thread,
// the compiler threads among them; the user's method is reached through
// its callers, with its file and the line of each call, most of its
// samples at the Pattern.compile line; native frames keep their library,
// kernel frames the kernel.
func TestParseAsyncJFR(t *testing.T) {
	data, err := os.ReadFile("testdata/jfr/asyncprofiler.jfr")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseAsyncJFR(data, 1001001, 4242)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	compiler, underLambda, interpreted, total := 0, 0, 0, int64(0)
	lines := map[int64]int64{}
	for _, s := range p.Sample {
		comm := s.Label["comm"]
		if len(comm) != 1 || s.NumLabel["pid"][0] != 4242 || s.NumLabel["tid"][0] == 0 {
			t.Fatalf("sample labels %v %v: want comm, pid 4242 and its tid", s.Label, s.NumLabel)
		}
		if s.Value[1] != s.Value[0]*1001001 {
			t.Fatalf("sample values %v: want each sample worth the period", s.Value)
		}
		total += s.Value[0]
		if strings.Contains(comm[0], "CompilerThre") {
			compiler++
		}
		if len(s.Label[LabelJVMLeaf]) > 0 {
			interpreted++
		}
		var names []string
		for i, loc := range s.Location {
			ln := loc.Line[0]
			names = append(names, ln.Function.Name)
			if ln.Function.Name == "Server.summarize" {
				if ln.Function.Filename != "Server.java" {
					t.Fatalf("Server.summarize in file %q: want Server.java", ln.Function.Filename)
				}
				if i > 0 && strings.HasPrefix(s.Location[i-1].Line[0].Function.Name, "java.util.regex.Pattern.") {
					lines[ln.Line] += s.Value[0]
				}
			}
		}
		joined := strings.Join(names, ";")
		if strings.Contains(joined, "java/") {
			t.Fatalf("a class left slashed in %s", joined)
		}
		if strings.Contains(joined, "Server.summarize;Server.lambda$main$1") {
			underLambda++
		}
	}
	if compiler == 0 || underLambda == 0 || interpreted == 0 || interpreted == len(p.Sample) {
		t.Errorf("%d compiler-thread samples, %d of Server.summarize under its caller, %d of %d interpreted: want some of each",
			compiler, underLambda, interpreted, len(p.Sample))
	}
	// Server.java's line 61 compiles the pattern; line 64 matches it.
	if lines[61] == 0 || lines[61] < lines[64] {
		t.Errorf("Server.summarize's samples in java.util.regex.Pattern by line %v: want most at line 61", lines)
	}
	if !hasFunction(p, "CompileBroker::compiler_thread_loop") {
		t.Error("libjvm's frames are not named: no CompileBroker::compiler_thread_loop")
	}
	for _, m := range p.Mapping {
		if m.File == "" || strings.Contains(m.File, "/") {
			t.Errorf("mapping %q: want a library's name or the kernel's", m.File)
		}
	}
	t.Logf("%d samples, %d stacks; Server.summarize under Pattern by line %v", total, len(p.Sample), lines)
}

// TestParseAsyncJFRRefuses: a file that is not a whole recording is an
// error that says so, never a profile.
func TestParseAsyncJFRRefuses(t *testing.T) {
	data, err := os.ReadFile("testdata/jfr/asyncprofiler.jfr")
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"empty":     {nil, "empty"},
		"not jfr":   {[]byte(strings.Repeat("x", 100)), "not a JFR chunk"},
		"truncated": {data[:len(data)/2], "incomplete"},
		"version 1": {withUint16(data, 4, 1), "version 1"},
	} {
		_, err := ParseAsyncJFR(c.data, 1, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want one saying %q", name, err, c.want)
		}
	}
	if _, err := ParseAsyncJFR(data, 0, 1); err == nil {
		t.Error("period 0: no error")
	}
}

// withUint16 is a copy of data with the big-endian uint16 at off set to v.
func withUint16(data []byte, off int, v uint16) []byte {
	out := append([]byte(nil), data...)
	binary.BigEndian.PutUint16(out[off:], v)
	return out
}

func FuzzParseAsyncJFR(f *testing.F) {
	if b, err := os.ReadFile("testdata/jfr/asyncprofiler.jfr"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(jfrMagic + "\x00\x02\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseAsyncJFR(data, 1_000_000, 1)
		if err != nil {
			return
		}
		if err := p.CheckValid(); err != nil {
			t.Fatalf("invalid profile: %v", err)
		}
	})
}
