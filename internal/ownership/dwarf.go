package ownership

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"path"
	"sort"
	"strings"
)

// maxCompileUnits bounds the compile units read from DWARF.
const maxCompileUnits = 200000

// dwarfCrates lists the Rust crates a binary's DWARF compile units name:
// rustc names a unit "src/lib.rs/@/regex.a5d7766f-cgu.4" with the crate's
// directory as its comp_dir, so a unit in the cargo registry gives a
// dependency's name and version, and a unit elsewhere (not Rust's own
// library) a crate of the user's. Only compile units are read, not their
// children, and only when the debug sections fit perflab's bound.
func dwarfCrates(ef *elf.File, binPath string) ([]Module, string) {
	size, err := dwarfSize(ef)
	if err != nil {
		return nil, err.Error()
	}
	if size > maxDWARFBytes {
		return nil, fmt.Sprintf("debug information of %d MiB not read (more than %d MiB): crates named from symbols", size>>20, maxDWARFBytes>>20)
	}
	d, err := ef.DWARF()
	if err != nil {
		return nil, "debug information unreadable: " + err.Error()
	}
	from := "DWARF of " + binPath
	seen := map[string]Module{}
	r := d.Reader()
	for units := 0; units < maxCompileUnits; units++ {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag != dwarf.TagCompileUnit {
			r.SkipChildren()
			continue
		}
		name, _ := e.Val(dwarf.AttrName).(string)
		dir, _ := e.Val(dwarf.AttrCompDir).(string)
		r.SkipChildren()
		if mod, ok := unitCrate(name, dir); ok {
			mod.From = from
			if old, dup := seen[mod.Path]; !dup || old.Version == "" {
				seen[mod.Path] = mod
			}
		}
	}
	out := make([]Module, 0, len(seen))
	for _, m := range seen {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, ""
}

// unitCrate reads the crate of a Rust compile unit named name compiled in
// dir.
func unitCrate(name, dir string) (Module, bool) {
	src, unit, ok := strings.Cut(name, "/@/")
	if !ok {
		return Module{}, false
	}
	full := src
	if !path.IsAbs(full) {
		full = path.Join(dir, src)
	}
	if crate, ver, ok := crateFromPath(full + "/"); ok {
		return Module{Lang: LangRust, Path: crate, Version: ver}, true
	}
	if _, ok := rustLibraryPath(full); ok {
		return Module{}, false
	}
	crate, _, _ := strings.Cut(unit, ".")
	if crateIdent(crate) == "" || rustStdCrates[crate] {
		return Module{}, false
	}
	return Module{Lang: LangRust, Path: crate, User: true}, true
}

// dwarfSize adds up what ef.DWARF would load: the debug sections'
// uncompressed sizes (a .zdebug section's size is in its header).
func dwarfSize(ef *elf.File) (uint64, error) {
	var total uint64
	for _, s := range ef.Sections {
		switch {
		case strings.HasPrefix(s.Name, ".debug_"):
			total += s.Size // debug/elf reports a SHF_COMPRESSED section's uncompressed size
		case strings.HasPrefix(s.Name, ".zdebug_"):
			var hdr [12]byte
			if _, err := s.ReadAt(hdr[:], 0); err != nil || string(hdr[:4]) != "ZLIB" {
				return 0, fmt.Errorf("compressed debug section %s unreadable", s.Name)
			}
			total += binary.BigEndian.Uint64(hdr[4:])
		}
		if total > maxDWARFBytes {
			return total, nil
		}
	}
	return total, nil
}
