package capture

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// samplesByPID sums a profile's sample counts per pid label.
func samplesByPID(p *profile.Profile) map[int64]int64 {
	out := map[int64]int64{}
	for _, s := range p.Sample {
		pid := int64(0)
		if v := s.NumLabel["pid"]; len(v) > 0 {
			pid = v[0]
		}
		out[pid] += s.Value[0]
	}
	return out
}

func TestParseCollapsedPySpyProcesses(t *testing.T) {
	// py-spy --subprocesses: each worker's stacks under its master's
	// process frame; a python -c command line holds a ";".
	in := `process 10:"python3 gunicorn app:app";process 11:"python3 gunicorn app:app";<module> (/venv/bin/gunicorn:8);render (/srv/app.py:12) 3
process 10:"python3 gunicorn app:app";process 12:"python3 -c from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=7)";<module> (<string>:1);render (/srv/app.py:12) 2
process 10:"python3 gunicorn app:app";sleep (/venv/lib/python3.11/site-packages/gunicorn/arbiter.py:357) 1
render (/srv/app.py:12) 4
`
	p, err := ParseCollapsed(strings.NewReader(in), 1e7)
	if err != nil {
		t.Fatal(err)
	}
	got := samplesByPID(p)
	want := map[int64]int64{11: 3, 12: 2, 10: 1, 0: 4}
	for pid, n := range want {
		if got[pid] != n {
			t.Errorf("pid %d: %d samples, want %d (all: %v)", pid, got[pid], n, got)
		}
	}
	for _, s := range p.Sample {
		for _, loc := range s.Location {
			if name := loc.Line[0].Function.Name; strings.HasPrefix(name, "process ") || strings.Contains(name, "spawn_main(") {
				t.Errorf("process frame %q kept in the stack", name)
			}
		}
		if pid := s.NumLabel["pid"]; len(pid) > 0 && pid[0] == 12 && !strings.Contains(s.Label["comm"][0], "spawn_main;") {
			t.Errorf("comm of pid 12 = %q, want the whole command line", s.Label["comm"])
		}
	}
}

func TestParseRbspyRaw(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "rbspyraw", "puma.raw.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := ParseRbspyRaw(f, 1e7)
	if err != nil {
		t.Fatal(err)
	}
	got := samplesByPID(p)
	if got[101] != 3 || got[102] != 1 || got[100] != 0 {
		t.Errorf("samples by pid %v; want 101: 3, 102: 1 and none of the master's off-CPU sample", got)
	}
	leaf := p.Sample[0].Location[0].Line[0].Function
	caller := p.Sample[0].Location[1].Line[0]
	if leaf.Name != "[c function]" || caller.Function.Name != "build_table" || caller.Function.Filename != "/srv/app/app.rb" || caller.Line != 14 {
		t.Errorf("stack starts %q, %q %s:%d; want [c function] under build_table /srv/app/app.rb:14",
			leaf.Name, caller.Function.Name, caller.Function.Filename, caller.Line)
	}
}

func TestParseRbspyRawRejects(t *testing.T) {
	for name, data := range map[string][]byte{
		"not gzip":  []byte("rbspy02\n{}\n"),
		"bad magic": gz(t, "rbspy01\n{}\n"),
		"bad json":  gz(t, "rbspy02\n{\"sample_rate\":99}\n{\"trace\": [\n"),
	} {
		if _, err := ParseRbspyRaw(bytes.NewReader(data), 1e7); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := ParseRbspyRaw(bytes.NewReader(gz(t, "rbspy02\n")), 0); err == nil {
		t.Error("period 0: no error")
	}
}

func gz(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

func FuzzParseRbspyRaw(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "rbspyraw", "puma.raw.gz"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(gz(f, "rbspy02\n{\"trace\":[],\"pid\":1}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseRbspyRaw(bytes.NewReader(data), 1e7)
		if err == nil && p == nil {
			t.Fatal("nil profile without an error")
		}
	})
}

func TestJITMapsLastEntryWins(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "perf-42.map")
	// A module wrapper compiled first, its code freed, and digestCatalog
	// compiled (twice, by two tiers) over the same addresses.
	m := "1000 400 JS:~(anonymous) node:internal/main:1:1\n" +
		"1100 80 JS:~digestCatalog /srv/shop/app.js:13:23\n" +
		"1100 90 JS:*digestCatalog /srv/shop/app.js:13:23\n" +
		"2000 10 Builtin:ArrayPush\n"
	if err := os.WriteFile(path, []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	j := &jitMaps{}
	for _, tc := range []struct {
		addr       uint64
		name, file string
		line       int64
	}{
		{0x1150, "digestCatalog", "/srv/shop/app.js", 13},
		{0x1010, "(anonymous)", "node:internal/main", 1},
		{0x2005, "Builtin:ArrayPush", "", 0},
		{0x3000, "perf-42.map+0x3000", "", 0}, // not in the map: left as perf named it
	} {
		f := j.resolve(frame{name: fmt.Sprintf("perf-42.map+%#x", tc.addr), dso: path, addr: tc.addr})
		if f.name != tc.name || f.file != tc.file || f.line != tc.line {
			t.Errorf("resolve(%#x) = %q %q:%d, want %q %q:%d", tc.addr, f.name, f.file, f.line, tc.name, tc.file, tc.line)
		}
	}
}

func TestV8FrameNames(t *testing.T) {
	for _, tc := range []struct{ in, name, file string }{
		{"JS:~digestCatalog /srv/shop/app.js:13:23", "digestCatalog", "/srv/shop/app.js"},
		{"JS:*Layer.handle [as handle_request] /srv/shop/node_modules/express/lib/router/layer.js:86:49", "Layer.handle [as handle_request]", "/srv/shop/node_modules/express/lib/router/layer.js"},
		{"LazyCompile:*render file:///srv/shop/view.mjs:4:10", "render", "/srv/shop/view.mjs"},
		{"JS:~ /srv/shop/app.js:27:22", "(anonymous):27", "/srv/shop/app.js"},
		{"Builtin:ArrayPrototypePush", "Builtin:ArrayPrototypePush", ""},
		{"void Server.handle(com.sun.net.httpserver.HttpExchange)", "Server.handle", ""},
		{"java.lang.String java.lang.module.ModuleDescriptor.name()", "java.lang.module.ModuleDescriptor.name", ""},
		{"int[] Server$Inner.<init>(int, long[])", "Server$Inner.<init>", ""},
		{"void v8::internal::Heap::Scavenge(int)", "void v8::internal::Heap::Scavenge(int)", ""},
	} {
		f := jitFrame(frame{name: tc.in, dso: "/tmp/perf-1.map"})
		if f.name != tc.name || f.file != tc.file {
			t.Errorf("jitFrame(%q) = %q in %q, want %q in %q", tc.in, f.name, f.file, tc.name, tc.file)
		}
	}
}
