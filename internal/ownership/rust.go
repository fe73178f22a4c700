package ownership

import (
	"path"
	"regexp"
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// Rust: with debug information the file decides (a crate in the cargo
// registry, "~/.cargo/registry/src/INDEX/regex-automata-0.4.9/...", or a
// git checkout or vendor directory is the Dependency with its version;
// Rust's library, "/rustc/HASH/library/core/...", is Std; the project
// root decides the rest). Cargo's default release build has no debug
// information, only symbols: then the crate a symbol names decides
// ("regex_automata::nfa::thompson::Compiler::c"; for a trait
// implementation "<regex_syntax::utf8::Utf8Sequences as
// core::iter::Iterator>::next", the implementing type's crate; for a
// primitive's, "<str>::trim_matches", core's). std, core, alloc and the
// crates of Rust's runtime are Std; a crate of the workspace (Cargo.lock
// entries without a source, Cargo.toml's package) or the crate named as
// the executable is User; a crate Cargo.lock or DWARF lists is a
// Dependency with its version; any other crate of a Rust executable is a
// Dependency. Mangled names (legacy "_ZN...E" and v0 "_R...") are
// demangled first.

// demangled returns a mangled C++ or Rust symbol demangled, or name.
func demangled(name string) string {
	if !strings.HasPrefix(name, "_Z") && !strings.HasPrefix(name, "_R") {
		return name
	}
	return demangle.Filter(name, demangle.NoParams, demangle.NoClones)
}

// rustClass classifies a Rust symbol of the executable bin ("" if not
// known).
func (m *Model) rustClass(name, bin string) Class {
	name = demangled(name)
	crate := rustCrate(name)
	c := Class{Lang: LangRust, Package: crate}
	switch {
	case crate == "":
		return rustNonPath(name)
	case rustStdCrates[crate]:
		c.Kind = Std
		return c
	}
	if mod := m.crate(crate); mod != nil {
		c.Package, c.Version = mod.Path, mod.Version
		c.Kind = Dependency
		if mod.User {
			c.Kind = User
		}
	} else {
		switch {
		case bin != "" && crate == crateKey(path.Base(bin)):
			c.Kind = User
		case rustStdDeps[crate]:
			c.Kind = Std // the standard library's own backtrace machinery
		case bin != "" || m != nil && m.rustUser:
			c.Kind = Dependency
		default:
			c = m.doubt(c, "")
		}
	}
	if c.Kind != User {
		c.Role = rustRole(c.Package)
	}
	return c
}

// rustNonPath classifies a symbol of a Rust executable that names no
// crate: Rust's own entry points and allocator shims are Std, the C
// library's and the start-up code the Runtime, other C code (of a -sys
// crate) a Dependency.
func rustNonPath(name string) Class {
	switch {
	case strings.HasPrefix(name, "rust_") || strings.HasPrefix(name, "__rust") || strings.HasPrefix(name, "__rdl_") || strings.HasPrefix(name, "__rg_"):
		return Class{Kind: Std, Lang: LangRust, Package: "std"}
	case name == "main" || isReservedC(name):
		return Class{Kind: Runtime, Lang: LangNative, Package: "libc"}
	}
	return Class{Kind: Dependency, Lang: LangNative, Package: "C code"}
}

// rustStdCrates are the crates of Rust's standard library and runtime.
var rustStdCrates = map[string]bool{
	"std": true, "core": true, "alloc": true, "proc_macro": true, "test": true, "panic_unwind": true,
	"panic_abort": true, "compiler_builtins": true, "std_detect": true, "unwind": true,
	"rustc_std_workspace_core": true, "rustc_std_workspace_alloc": true, "__rustc": true,
}

// rustStdDeps are crates the standard library links for backtraces;
// unless the project lists them, they are the standard library's.
var rustStdDeps = map[string]bool{
	"addr2line": true, "gimli": true, "miniz_oxide": true, "adler2": true, "adler": true, "object": true, "rustc_demangle": true,
}

// rustPrimitives are Rust's primitive types, whose inherent methods are
// core's.
var rustPrimitives = map[string]bool{
	"str": true, "bool": true, "char": true, "u8": true, "u16": true, "u32": true, "u64": true, "u128": true, "usize": true,
	"i8": true, "i16": true, "i32": true, "i64": true, "i128": true, "isize": true, "f32": true, "f64": true, "!": true,
}

// rustCrate returns the crate a demangled Rust path names: its first
// segment, or for a qualified path "<A as B>::m" A's crate (B's when A is
// a primitive or generic parameter), for "<A>::m" A's; "" when the name
// is not a path.
func rustCrate(name string) string {
	if !strings.HasPrefix(name, "<") {
		first, _, ok := strings.Cut(name, "::")
		if !ok {
			return ""
		}
		return crateIdent(first)
	}
	end := matchingAngle(name)
	if end < 0 {
		return ""
	}
	inner := name[1:end]
	self, trait, hasTrait := cutTopLevel(inner, " as ")
	if c := typeCrate(self); c != "" {
		return c
	}
	if hasTrait {
		if c := typeCrate(trait); c != "" {
			return c
		}
	}
	return "core" // a primitive's or a slice's inherent method: core's
}

// typeCrate returns the crate of a Rust type as written in a path:
// references, pointers, slices and dyn are looked through; a primitive
// or a generic parameter has none.
func typeCrate(t string) string {
	t = strings.TrimSpace(t)
	for {
		n := t
		for _, p := range []string{"&mut ", "&", "*const ", "*mut ", "dyn ", "[", "("} {
			t = strings.TrimPrefix(t, p)
		}
		if n == t {
			break
		}
	}
	if strings.HasPrefix(t, "<") {
		return rustCrate(t)
	}
	first, _, ok := strings.Cut(t, "::")
	if !ok {
		return ""
	}
	if rustPrimitives[first] {
		return ""
	}
	return crateIdent(first)
}

// crateIdent returns s if it is a crate name (an identifier, with a v0
// disambiguator "[1a2b]" dropped), else "".
func crateIdent(s string) string {
	if i := strings.IndexByte(s, '['); i > 0 {
		s = s[:i]
	}
	if s == "" {
		return ""
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return ""
		}
	}
	return s
}

// matchingAngle returns the index of the '>' closing s's leading '<', or
// -1. "->" is not a bracket.
func matchingAngle(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			depth++
		case '>':
			if i > 0 && s[i-1] == '-' {
				continue
			}
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// cutTopLevel cuts s at the first sep outside angle brackets.
func cutTopLevel(s, sep string) (before, after string, found bool) {
	depth := 0
	for i := 0; i+len(sep) <= len(s); i++ {
		switch s[i] {
		case '<':
			depth++
		case '>':
			if depth > 0 {
				depth--
			}
		}
		if depth == 0 && strings.HasPrefix(s[i:], sep) {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}

// rustLike reports whether name is Rust: by its shape, or by naming a
// crate m knows.
func (m *Model) rustLike(name string) bool {
	return looksRust(name) || m.crate(rustCrate(name)) != nil
}

// looksRust reports whether name can only be Rust: core's or alloc's
// paths, "<A as B>::m", a legacy hash suffix, a closure, or a mangled
// Rust symbol.
func looksRust(name string) bool {
	switch {
	case strings.HasPrefix(name, "_R"), strings.HasPrefix(name, "_ZN") && rustLegacyHash.MatchString(name):
		return true
	case strings.HasPrefix(name, "core::"), strings.HasPrefix(name, "alloc::"), strings.HasPrefix(name, "<core::"), strings.HasPrefix(name, "<alloc::"):
		return true
	case strings.HasPrefix(name, "<") && strings.Contains(name, " as ") && strings.Contains(name, ">::"):
		return !strings.Contains(name, "(") // C++ has no "as"; a demangled C++ name has parameters
	case strings.Contains(name, "{{closure}}"), strings.Contains(name, "{closure#"):
		return true
	}
	return rustHashSuffix.MatchString(name)
}

var (
	rustHashSuffix = regexp.MustCompile(`::h[0-9a-f]{16}$`)
	rustLegacyHash = regexp.MustCompile(`17h[0-9a-f]{16}E$`)
	// cargoRegistry matches a crate's directory in the cargo registry or
	// a git checkout; group 1 is the directory's name.
	cargoRegistry = regexp.MustCompile(`/registry/src/[^/]+/([^/]+)/|/git/checkouts/([^/]+)-[0-9a-f]+/[^/]+/`)
	crateVersion  = regexp.MustCompile(`^(.+)-([0-9]+\.[0-9]+\.[0-9]+[^/]*)$`)
)

// crateFromPath reads a crate's name and version from a file of the
// cargo registry ("/root/.cargo/registry/src/index.crates.io-.../
// regex-automata-0.4.9/src/lib.rs"), a git checkout (name only) or a
// vendor directory of Rust sources ("vendor/regex/src/lib.rs").
func crateFromPath(file string) (crate, version string, ok bool) {
	if mm := cargoRegistry.FindStringSubmatch(file); mm != nil {
		if mm[2] != "" {
			return mm[2], "", true
		}
		if v := crateVersion.FindStringSubmatch(mm[1]); v != nil {
			return v[1], v[2], true
		}
		return mm[1], "", true
	}
	if strings.HasSuffix(file, ".rs") {
		if rest, ok := afterMarker(file, "/vendor/"); ok {
			name, _, found := strings.Cut(rest, "/")
			if found {
				if v := crateVersion.FindStringSubmatch(name); v != nil {
					return v[1], v[2], true
				}
				return name, "", true
			}
		}
	}
	return "", "", false
}

// rustLibraryPath reads the crate of a file of Rust's own library, as
// its debug information names it ("/rustc/HASH/library/core/src/...",
// an installed rust-src ".../lib/rustlib/src/rust/library/std/...").
func rustLibraryPath(file string) (string, bool) {
	rest, ok := afterMarker(file, "/library/")
	if !ok || !strings.Contains(file, "/rustc/") && !strings.Contains(file, "/rustlib/") {
		return "", false
	}
	crate, _, _ := strings.Cut(rest, "/")
	return crate, crate != ""
}

// crate returns the crate known by name, nil if none.
func (m *Model) crate(name string) *Module {
	if m == nil || len(m.rustCrates) == 0 {
		return nil
	}
	return m.rustCrates[crateKey(name)]
}
