package capture

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/pprof/profile"
)

// AddSourceLines gives the locations of a profile read from perf script
// their source files and lines, from the DWARF of the binaries they are
// in (Go binaries carry it unless built with -ldflags=-w; C, C++ and
// Rust need -g), with the calls inlined at each address as frames of
// their own, innermost first, as pprof shows a Go CPU profile: so that
// `list FUNC` and a hot function's lines work on a perf profile of a Go
// program. A caller's address is a return address: its line is that of
// the instruction before (the call). Locations of binaries without DWARF,
// or that are gone, keep perf's function names; the warnings say which
// binaries could not be read (a binary without DWARF is not one).
func AddSourceLines(p *profile.Profile) (warnings []string) {
	callers := callerLocations(p)
	funcs := map[funcKey]*profile.Function{}
	for _, f := range p.Function {
		funcs[funcKey{f.Name, f.Filename}] = f
	}
	for _, m := range p.Mapping {
		if !filepath.IsAbs(m.File) {
			continue // [kernel.kallsyms], [vdso], //anon
		}
		if st, err := os.Stat(m.File); err != nil || !st.Mode().IsRegular() {
			continue
		}
		x, err := openDWARF(m.File)
		if err != nil {
			if !errors.Is(err, errNoDWARF) {
				warnings = append(warnings, fmt.Sprintf("source lines of %s: %v", m.File, err))
			}
			continue
		}
		if symbolize(p, m, x, callers, funcs) {
			m.HasFilenames, m.HasLineNumbers, m.HasInlineFrames = true, true, true
		}
	}
	dropUnused(p)
	return warnings
}

// dropUnused removes the functions no location names any more (perf's
// names of symbols the DWARF renamed).
func dropUnused(p *profile.Profile) {
	used := map[*profile.Function]bool{}
	for _, l := range p.Location {
		for _, ln := range l.Line {
			used[ln.Function] = true
		}
	}
	kept := p.Function[:0]
	for _, f := range p.Function {
		if used[f] {
			kept = append(kept, f)
		}
	}
	p.Function = kept
}

// callerLocations are the locations that are some sample's caller (not
// only its leaf).
func callerLocations(p *profile.Profile) map[*profile.Location]bool {
	out := map[*profile.Location]bool{}
	for _, s := range p.Sample {
		for _, l := range s.Location[min(1, len(s.Location)):] {
			out[l] = true
		}
	}
	return out
}

// symbolize names the lines of m's locations from x; it reports whether it
// named any.
func symbolize(p *profile.Profile, m *profile.Mapping, x *dwarfIndex, callers map[*profile.Location]bool, funcs map[funcKey]*profile.Function) bool {
	named := false
	for _, loc := range p.Location {
		if loc.Mapping != m || loc.Address == 0 {
			continue
		}
		pc, ok := x.address(loc.Address)
		if !ok {
			continue
		}
		if callers[loc] {
			pc-- // in the call instruction, not after it
		}
		frames := x.frames(pc)
		if len(frames) == 0 {
			continue
		}
		lines := make([]profile.Line, 0, len(frames))
		for i, f := range frames {
			name := f.fn
			if name == "" && i == len(frames)-1 && len(loc.Line) > 0 {
				name = loc.Line[len(loc.Line)-1].Function.Name // perf's name of the symbol
			}
			if name == "" {
				name = "[unknown]"
			}
			lines = append(lines, profile.Line{Function: functionOf(p, funcs, name, f.file), Line: f.line})
		}
		loc.Line = lines
		named = true
	}
	return named
}

// functionOf returns the profile's function named name in file, adding it
// when new.
func functionOf(p *profile.Profile, funcs map[funcKey]*profile.Function, name, file string) *profile.Function {
	k := funcKey{name, file}
	if f, ok := funcs[k]; ok {
		return f
	}
	var id uint64
	for _, g := range p.Function {
		id = max(id, g.ID)
	}
	f := &profile.Function{ID: id + 1, Name: name, SystemName: name, Filename: file}
	funcs[k] = f
	p.Function = append(p.Function, f)
	return f
}
