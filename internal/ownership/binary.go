package ownership

import (
	"bytes"
	"debug/buildinfo"
	"debug/elf"
	"fmt"
	"io"
	"strings"

	"perflab/internal/files"
)

// Frame-pointer verdicts of Binary.FramePointers.
const (
	FramePointersYes     = "yes"
	FramePointersNo      = "no"
	FramePointersPartial = "partial" // some functions set one up, many do not
	FramePointersUnknown = "unknown"
)

// Binary is what perflab read from an executable: its language, whether
// it carries symbols and debug information, and (heuristically) whether
// its functions keep frame pointers.
type Binary struct {
	Path string `json:"path"`
	// Lang is LangGo, LangRust or LangNative; "" when the file could not
	// be read.
	Lang      string `json:"lang,omitempty"`
	GoVersion string `json:"go_version,omitempty"`
	// Symbols says it has a symbol table (.symtab); DebugInfo that it has
	// DWARF (.debug_info), LineTables DWARF line tables (.debug_line).
	Symbols    bool `json:"symbols"`
	DebugInfo  bool `json:"debug_info"`
	LineTables bool `json:"line_tables"`
	// FramePointers is a heuristic (see FramePointers*): the share of
	// sampled functions whose prologue sets up a frame pointer
	// (x86-64's push %rbp; mov %rsp,%rbp) is FramePointerShare. Go keeps
	// frame pointers on amd64 and arm64.
	FramePointers     string  `json:"frame_pointers,omitempty"`
	FramePointerShare float64 `json:"frame_pointer_share,omitempty"`
	// UnwindTables says it has unwind tables (.eh_frame or
	// .debug_frame): perf can walk its stacks with DWARF without frame
	// pointers, even stripped (strip keeps .eh_frame).
	UnwindTables bool `json:"unwind_tables,omitempty"`
	// Err says why the file could not be read, or what of it was not.
	Err string `json:"error,omitempty"`
}

// Bounds of InspectBinary's reads.
const (
	maxSymtabBytes  = 64 << 20  // a symbol table larger than this is not read
	maxDWARFBytes   = 128 << 20 // nor debug information larger than this
	maxCommentBytes = 64 << 10
	fpSampleFuncs   = 4096 // functions whose prologue is read
	fpMinFuncs      = 20   // fewer functions tell nothing
)

// InspectBinary reads the ELF executable or library at path: its
// language, Go build information, symbols and debug information, frame
// pointers (a heuristic), and the Go modules or Rust crates it was built
// from, with their versions (from Go's build information; from DWARF
// compile units for Rust). Reads are bounded: a section larger than
// perflab reads is left out and said in Binary.Err. Hostile files yield
// an error, never a panic.
func InspectBinary(path string) (b Binary, mods []Module, err error) {
	b.Path = path
	f, err := files.Open(path, 0)
	if err != nil {
		return b, nil, err
	}
	defer f.Close()
	return inspect(f, path)
}

// inspect reads an ELF file from r; path names it.
func inspect(r io.ReaderAt, path string) (b Binary, mods []Module, err error) {
	b.Path = path
	defer func() {
		if p := recover(); p != nil {
			b.Lang, mods = "", nil
			err = fmt.Errorf("%s: malformed ELF file (%v)", path, p)
		}
	}()
	ef, err := elf.NewFile(r)
	if err != nil {
		return b, nil, fmt.Errorf("%s: not an ELF file: %w", path, err)
	}
	var notes []string
	if s := ef.Section(".symtab"); s != nil && s.Type == elf.SHT_SYMTAB && s.Size > 0 {
		b.Symbols = true
	}
	b.DebugInfo = hasSection(ef, "info")
	b.LineTables = hasSection(ef, "line")
	b.UnwindTables = hasSection(ef, "frame") || ef.Section(".eh_frame") != nil && ef.Section(".eh_frame").Size > 0
	if bi, err := buildinfo.Read(r); err == nil {
		b.Lang, b.GoVersion = LangGo, bi.GoVersion
		b.FramePointers = FramePointersYes
		if ef.Machine != elf.EM_X86_64 && ef.Machine != elf.EM_AARCH64 {
			b.FramePointers = FramePointersUnknown
		}
		return b, goModules(bi, path), nil
	}
	syms, symNote := readSymbols(ef)
	notes = appendNote(notes, symNote)
	b.Lang = nativeLang(ef, syms)
	b.FramePointers, b.FramePointerShare = framePointers(ef, syms)
	if b.DebugInfo {
		crates, note := dwarfCrates(ef, path)
		notes = appendNote(notes, note)
		mods = crates
		if b.Lang == LangNative && len(crates) > 0 {
			b.Lang = LangRust
		}
	}
	b.Err = strings.Join(notes, "; ")
	return b, mods, nil
}

func appendNote(notes []string, n string) []string {
	if n != "" {
		notes = append(notes, n)
	}
	return notes
}

// hasSection reports whether ef has a non-empty DWARF section .debug_NAME
// (or its compressed .zdebug_NAME).
func hasSection(ef *elf.File, name string) bool {
	for _, n := range []string{".debug_" + name, ".zdebug_" + name} {
		if s := ef.Section(n); s != nil && s.Size > 0 && s.Type != elf.SHT_NOBITS {
			return true
		}
	}
	return false
}

// readSymbols returns ef's function symbols, unless its symbol table is
// larger than perflab reads.
func readSymbols(ef *elf.File) ([]elf.Symbol, string) {
	s := ef.Section(".symtab")
	if s == nil || s.Type != elf.SHT_SYMTAB {
		return nil, ""
	}
	if s.Size > maxSymtabBytes {
		return nil, fmt.Sprintf("symbol table of %d MiB not read (more than %d MiB)", s.Size>>20, maxSymtabBytes>>20)
	}
	syms, err := ef.Symbols()
	if err != nil {
		return nil, "symbol table unreadable: " + err.Error()
	}
	out := syms[:0]
	for _, sym := range syms {
		if elf.ST_TYPE(sym.Info) == elf.STT_FUNC && sym.Value != 0 {
			out = append(out, sym)
		}
	}
	return out, ""
}

// nativeLang tells Rust from other native code: rustc's .comment, or
// Rust's runtime symbols.
func nativeLang(ef *elf.File, syms []elf.Symbol) string {
	if s := ef.Section(".comment"); s != nil && s.Type != elf.SHT_NOBITS && s.Size <= maxCommentBytes {
		if data, err := s.Data(); err == nil && bytes.Contains(data, []byte("rustc version")) {
			return LangRust
		}
	}
	for _, sym := range syms {
		if sym.Name == "rust_begin_unwind" || sym.Name == "__rust_alloc" || strings.HasPrefix(sym.Name, "_ZN3std2rt") {
			return LangRust
		}
	}
	return LangNative
}

// goModules lists a Go binary's modules: the main module is the user's,
// as is a module replaced by a local directory; the others are
// dependencies.
func goModules(bi *buildinfo.BuildInfo, path string) []Module {
	from := "build info of " + path
	var out []Module
	if bi.Main.Path != "" {
		out = append(out, Module{Lang: LangGo, Path: bi.Main.Path, Version: bi.Main.Version, User: true, From: from})
	}
	for _, d := range bi.Deps {
		m := Module{Lang: LangGo, Path: d.Path, Version: d.Version, From: from}
		if r := d.Replace; r != nil {
			if strings.HasPrefix(r.Path, ".") || strings.HasPrefix(r.Path, "/") {
				m.User = true // replaced by a directory of the user's
			} else if r.Version != "" {
				m.Version = r.Version
			}
		}
		out = append(out, m)
	}
	return out
}
