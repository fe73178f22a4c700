package ownership

import (
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// buildRxsvc copies testdata/rxsvc (a crate depending on regex from
// crates.io) to a temporary directory and builds it with cargo build
// --release and the extra environment env. The target directory is kept
// in the user's cache directory per flavour, so the dependencies are
// compiled once, not on every run. It returns the binary and the crate's
// directory.
func buildRxsvc(t *testing.T, flavour string, env ...string) (bin, dir string) {
	t.Helper()
	cargo := labtest.NeedCargo(t)
	dir = filepath.Join(t.TempDir(), "rxsvc")
	if err := os.CopyFS(dir, os.DirFS("testdata/rxsvc")); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "target")
	if cache, err := os.UserCacheDir(); err == nil {
		target = filepath.Join(cache, "perflab-test", "ownership-cargo", flavour)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	var out []byte
	var err error
	for _, offline := range []bool{true, false} { // the registry's cache first, then crates.io
		args := []string{"build", "--release", "--quiet"}
		if offline {
			args = append(args, "--offline")
		}
		cmd := exec.CommandContext(ctx, cargo, args...)
		cmd.Dir = dir
		cmd.Env = append(append(os.Environ(), "CARGO_TARGET_DIR="+target), env...)
		if out, err = cmd.CombinedOutput(); err == nil {
			return filepath.Join(target, "release", "rxsvc"), dir
		}
	}
	t.Fatalf("cargo build --release: %v\n%s", err, out)
	return "", ""
}

// TestRustDefaultRelease builds a crate as cargo builds by default for
// release: a symbol table, no debug information, no frame pointers.
// Crates are named from the symbols' paths, versions from Cargo.lock.
func TestRustDefaultRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Rust crate with cargo")
	}
	bin, dir := buildRxsvc(t, "release")
	b, mods, err := InspectBinary(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cargo's default release build: %+v", b)
	if b.Lang != LangRust || !b.Symbols || b.DebugInfo || b.FramePointers != FramePointersNo {
		t.Errorf("binary %+v: want Rust, symbols, no debug information, no frame pointers", b)
	}
	if len(mods) != 0 {
		t.Errorf("crates %+v read without debug information", mods)
	}
	m := mustNew(t, Spec{Runtime: LangRust, Root: dir, Modules: rootModules(dir), Binaries: []Binary{b}})
	checkRustSymbols(t, m, bin, true)
	if notes := binaryNotes([]Binary{b}); len(notes) != 1 || !strings.Contains(notes[0], `RUSTFLAGS="-C force-frame-pointers=yes"`) {
		t.Errorf("notes %q: want the rebuild with frame pointers", notes)
	}
	// Under perf, the stacks stop at the leaf: said, with the remedy.
	p := perfRun(t, bin, "300")
	d := m.ClassifyProfile(p).Depth(p, 1)
	t.Logf("default release under perf: %d samples, median depth %d, shallow %d, no user frame %d: %+v", len(p.Sample), d.Median, d.Shallow, d.NoUser, d.Verdict)
	if v := d.Verdict; v.Reach || v.Fix != runfmt.FixUnwind || v.Lang != LangRust {
		t.Errorf("verdict %+v: want stacks that do not reach user code, and Rust's rebuild", d.Verdict)
	}
}

// TestRustFramePointersAndLines builds the crate with frame pointers and
// line tables: crates and versions come from DWARF compile units.
func TestRustFramePointersAndLines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Rust crate with cargo")
	}
	bin, _ := buildRxsvc(t, "fp-lines", "RUSTFLAGS=-C force-frame-pointers=yes", "CARGO_PROFILE_RELEASE_DEBUG=line-tables-only")
	b, mods, err := InspectBinary(bin)
	if err != nil {
		t.Fatal(err)
	}
	if b.Lang != LangRust || !b.Symbols || !b.DebugInfo || !b.LineTables || b.FramePointers != FramePointersYes {
		t.Errorf("binary %+v: want Rust with symbols, line tables and frame pointers", b)
	}
	byName := map[string]Module{}
	for _, m := range mods {
		byName[m.Path] = m
	}
	if ra := byName["regex-automata"]; ra.Version == "" || ra.User || !strings.HasPrefix(ra.From, "DWARF") {
		t.Errorf("regex-automata read from DWARF as %+v (all: %+v)", ra, mods)
	}
	if u := byName["rxsvc"]; !u.User {
		t.Errorf("rxsvc read from DWARF as %+v: want the user's crate", u)
	}
	m := mustNew(t, Spec{Runtime: LangRust, Modules: mods, Binaries: []Binary{b}})
	checkRustSymbols(t, m, bin, true)
	if notes := binaryNotes([]Binary{b}); len(notes) != 0 {
		t.Errorf("notes %q for a binary with frame pointers", notes)
	}
	// Under perf, the stacks reach summarize, which owns regex's cost.
	p := perfRun(t, bin, "300")
	c := m.ClassifyProfile(p)
	d := c.Depth(p, 1)
	t.Logf("frame pointers under perf: %d samples, median depth %d: %+v", len(p.Sample), d.Median, d.Verdict)
	if !d.Verdict.Reach {
		t.Errorf("verdict %+v: stacks with frame pointers reach user code", d.Verdict)
	}
	owned := 0
	for _, s := range p.Sample {
		if c.Location(s.Location[0])[0].Package != "regex-automata" {
			continue
		}
		ch := c.Charge(s)
		fs := frames(s)
		if ch.Owner.Location < 0 || !strings.HasPrefix(fs[ch.Owner.Location].Func, "rxsvc::") || ch.LibraryClass.Kind != Dependency || !strings.HasPrefix(ch.LibraryClass.Package, "regex") {
			t.Errorf("regex-automata sample %v charged %+v", fs, ch)
			continue
		}
		if strings.HasPrefix(fs[ch.Owner.Location].Func, "rxsvc::summarize") {
			owned++
		}
	}
	if owned == 0 {
		t.Errorf("no regex-automata sample charged to rxsvc::summarize among %d", len(p.Sample))
	}
}

// perfRun records bin with perf (call graphs by frame pointers) and
// reads its samples.
func perfRun(t *testing.T, bin string, args ...string) *profile.Profile {
	t.Helper()
	perf := labtest.NeedTool(t, "perf", "")
	data := filepath.Join(t.TempDir(), "perf.data")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rec := exec.CommandContext(ctx, perf, append([]string{"record", "-e", "cpu-clock", "-F", "999", "-g", "-o", data, "--", bin}, args...)...)
	if out, err := rec.CombinedOutput(); err != nil {
		t.Fatalf("perf record: %v\n%s", err, out)
	}
	script := filepath.Join(t.TempDir(), "script.txt")
	out, err := exec.CommandContext(ctx, perf, "script", "-F", "comm,tid,period,ip,sym,dso", "-i", data).Output()
	if err != nil {
		t.Fatalf("perf script: %v", err)
	}
	if err := os.WriteFile(script, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return perfProfile(t, script)
}

// checkRustSymbols classifies every function of bin's symbol table (as
// mangled in the file) and checks the crates: rxsvc the user's, regex's
// crates dependencies (with versions when withVersions), std's Std.
func checkRustSymbols(t *testing.T, m *Model, bin string, withVersions bool) {
	t.Helper()
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	syms, err := ef.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC {
			continue
		}
		name := demangled(s.Name)
		c := m.Classify(Frame{Func: s.Name, File: bin, Binary: bin})
		var want Kind
		switch crate := rustCrate(name); {
		case crate == "rxsvc":
			want = User
		case strings.HasPrefix(crate, "regex") || crate == "aho_corasick" || crate == "memchr":
			want = Dependency
			if withVersions && c.Version == "" {
				t.Errorf("%s: no version (%+v)", name, c)
			}
		case crate == "core" || crate == "alloc" || crate == "std":
			want = Std
		default:
			continue
		}
		counts[want.String()]++
		if c.Kind != want {
			t.Errorf("%s (%s): %v %s, want %v", name, s.Name, c.Kind, c.Package, want)
		}
	}
	if counts["user"] == 0 || counts["dependency"] == 0 || counts["std"] == 0 {
		t.Errorf("symbols judged %v: want some of each", counts)
	}
}
