package ownership

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
)

// cProgram is a C program of 40 functions big enough for the
// frame-pointer heuristic to judge.
func cProgram() string {
	var b strings.Builder
	b.WriteString("#include <stdio.h>\n#include <string.h>\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "__attribute__((noinline)) long f%d(const char *s, long n) { long a = %d; char buf[64]; for (long i = 0; i < n; i++) { snprintf(buf, sizeof buf, \"%%ld%%s\", i, s); a += (long)strlen(buf) * (i ^ %d); } return a; }\n", i, i, i)
	}
	b.WriteString("int main(int argc, char **argv) { long t = 0;\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "t += f%d(argv[0], argc);\n", i)
	}
	b.WriteString("printf(\"%ld\\n\", t); return 0; }\n")
	return b.String()
}

// buildC compiles cProgram with gcc and flags.
func buildC(t *testing.T, name string, flags ...string) string {
	t.Helper()
	gcc := labtest.NeedTool(t, "gcc", "")
	dir := t.TempDir()
	src := filepath.Join(dir, "prog.c")
	if err := os.WriteFile(src, []byte(cProgram()), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, name)
	if out, err := exec.Command(gcc, append(flags, "-o", bin, src)...).CombinedOutput(); err != nil {
		t.Fatalf("gcc %v: %v\n%s", flags, err, out)
	}
	return bin
}

// TestNativeBinaries: symbols, debug information and the frame-pointer
// heuristic and unwind tables on C programs built four ways.
func TestNativeBinaries(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the frame-pointer heuristic judges x86-64 only")
	}
	for _, tc := range []struct {
		name         string
		flags        []string
		symbols, dbg bool
		fp           string
	}{
		{"nofp", []string{"-O2"}, true, false, FramePointersNo},
		{"fp", []string{"-O2", "-fno-omit-frame-pointer"}, true, false, FramePointersYes},
		{"debug", []string{"-O2", "-g", "-fno-omit-frame-pointer"}, true, true, FramePointersYes},
		{"stripped", []string{"-O2", "-s"}, false, false, FramePointersUnknown},
	} {
		bin := buildC(t, tc.name, tc.flags...)
		b, mods, err := InspectBinary(bin)
		if err != nil {
			t.Fatal(err)
		}
		if b.Lang != LangNative || b.Symbols != tc.symbols || b.DebugInfo != tc.dbg || b.LineTables != tc.dbg || b.FramePointers != tc.fp || !b.UnwindTables || len(mods) != 0 {
			t.Errorf("gcc %v: %+v %v, want symbols %v, debug info %v, frame pointers %s, unwind tables (.eh_frame, kept by strip)", tc.flags, b, mods, tc.symbols, tc.dbg, tc.fp)
		}
		notes := binaryNotes([]Binary{b})
		switch tc.name {
		case "stripped":
			if len(notes) != 1 || !strings.Contains(notes[0], "neither symbols nor debug information") || !strings.Contains(notes[0], "do not strip") {
				t.Errorf("notes for a stripped binary: %q", notes)
			}
		case "nofp":
			if len(notes) != 1 || !strings.Contains(notes[0], "-fno-omit-frame-pointer") {
				t.Errorf("notes for a binary without frame pointers: %q", notes)
			}
		default:
			if len(notes) != 0 {
				t.Errorf("notes %q for gcc %v", notes, tc.flags)
			}
		}
	}
	if _, _, err := InspectBinary("testdata/rbspy.txt"); err == nil || !strings.Contains(err.Error(), "not an ELF file") {
		t.Errorf("a text file: %v", err)
	}
	if _, _, err := InspectBinary("testdata"); err == nil {
		t.Error("a directory read as a binary")
	}
}

// TestHostileSections: section headers claiming a terabyte of debug
// information or symbols are not read, and the binary is still
// described.
func TestHostileSections(t *testing.T) {
	bin := buildC(t, "debug", "-O2", "-g")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range []string{".debug_info", ".symtab"} {
		bad := setSectionSize(t, data, sec, 1<<40)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		b, _, err := inspect(bytes.NewReader(bad), "hostile")
		runtime.ReadMemStats(&after)
		if err != nil {
			continue // refused as malformed: fine too
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("%s of a terabyte: %d MiB allocated", sec, grew>>20)
		}
		if !strings.Contains(b.Err, "not read") && !strings.Contains(b.Err, "unreadable") {
			t.Errorf("%s of a terabyte: %+v, want a note that it was not read", sec, b)
		}
		t.Logf("%s of a terabyte: %v, %+v", sec, time.Since(start), b.Err)
	}
}

// setSectionSize returns a copy of an ELF64 little-endian file with the
// size of section name set to size.
func setSectionSize(t *testing.T, data []byte, name string, size uint64) []byte {
	t.Helper()
	ef, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	idx := -1
	for i, s := range ef.Sections {
		if s.Name == name {
			idx = i
		}
	}
	if idx < 0 {
		t.Fatalf("no section %s", name)
	}
	out := append([]byte(nil), data...)
	shoff := binary.LittleEndian.Uint64(out[0x28:])
	shentsize := uint64(binary.LittleEndian.Uint16(out[0x3a:]))
	binary.LittleEndian.PutUint64(out[shoff+uint64(idx)*shentsize+0x20:], size) // sh_size
	return out
}

// TestDetect reads a running Go service: its executable's build
// information, its working directory as the project root and the root's
// go.mod, Cargo.lock and JVM sources.
func TestDetect(t *testing.T) {
	bin := buildProtosvc(t)
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                                 "module example.com/svc\n\ngo 1.26\n",
		"Cargo.lock":                             "version = 4\n\n[[package]]\nname = \"svc-core\"\nversion = \"0.1.0\"\n\n[[package]]\nname = \"regex\"\nversion = \"1.11.1\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n",
		"src/main/java/com/acme/shop/Api.java":   "// the API\npackage com.acme.shop;\n\npublic class Api {}\n",
		"src/main/java/com/acme/shop/db/Db.java": "package com.acme.shop.db;\nclass Db {}\n",
		"Server.java":                            "public class Server {}\n",
		"node_modules/x/Ignored.java":            "package ignored.pkg;\n",
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-pprof-addr", "127.0.0.1:0") // free ports: another process may hold 6060
	cmd.Dir = root
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	m, err := Detect(Inputs{PIDs: []int{cmd.Process.Pid}})
	if err != nil {
		t.Fatal(err)
	}
	s := m.Spec()
	if s.Root != root || !strings.Contains(s.RootFrom, "working directory") || s.Runtime != LangGo {
		t.Errorf("root %q from %q, runtime %q", s.Root, s.RootFrom, s.Runtime)
	}
	if len(s.Binaries) != 1 || s.Binaries[0].Path != bin || s.Binaries[0].Lang != LangGo {
		t.Errorf("binaries %+v", s.Binaries)
	}
	if want := []string{"", "com.acme.shop", "com.acme.shop.db"}; fmt.Sprint(s.JVMPackages) != fmt.Sprint(want) {
		t.Errorf("JVM packages %q, want %q", s.JVMPackages, want)
	}
	for _, tc := range []classCase{
		{Frame{Func: "main.logResponse", Binary: bin}, User, "main", "", NoRole},
		{Frame{Func: "google.golang.org/protobuf/internal/encoding/text.appendString", Binary: bin}, Dependency, "google.golang.org/protobuf", protobufVersion, NoRole},
		{Frame{Func: "example.com/svc/api.Handle"}, User, "example.com/svc", "", NoRole},
		{Frame{Func: "svc_core::parse", Binary: "/srv/x/target/release/svc"}, User, "svc-core", "", NoRole},
		{Frame{Func: "regex::Regex::new", Binary: "/srv/x/target/release/svc"}, Dependency, "regex", "1.11.1", NoRole},
		{Frame{Func: "com.acme.shop.db.Db.query", Binary: "/tmp/perf-1.map"}, User, "com.acme.shop.db", "", NoRole},
		{Frame{Func: "ignored.pkg.X.y", Binary: "/tmp/perf-1.map"}, Dependency, "ignored.pkg", "", NoRole},
	} {
		checkClasses(t, m, []classCase{tc})
	}
	if _, err := Detect(Inputs{UserCode: "[", PIDs: []int{cmd.Process.Pid}}); err == nil || !strings.Contains(err.Error(), "--user-code") {
		t.Errorf("Detect with an invalid --user-code: %v", err)
	}
	// A process that is gone is said in the notes, not an error.
	m, err = Detect(Inputs{PIDs: []int{1 << 30}, Root: root})
	if err != nil || len(m.Spec().Notes) == 0 || m.Spec().RootFrom != "--src" {
		t.Errorf("Detect of a missing process: %v, %+v", err, m.Spec())
	}
}
