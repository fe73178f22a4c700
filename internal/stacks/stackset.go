package stacks

import (
	"errors"
	"fmt"
	"path"
	"strconv"

	"github.com/google/pprof/profile"

	"perflab/internal/funcname"
)

// Set is a profile reduced to what the analyses read: the distinct call
// stacks, each a list of function indices (leaf first, inlined frames
// expanded) with the summed sample values. Functions are keyed by name, as
// pprof's default "functions" granularity does (Python and Ruby functions by
// name and file: their names do not say where they are, and two classes'
// __init__ are two functions). At line granularity each (function, line)
// is a "function" of its own, as pprof's -lines does.
type Set struct {
	// SampleTypes, DefaultType, PeriodType, Period, DurationNanos,
	// TimeNanos and Comments are the profile's own.
	SampleTypes   []profile.ValueType
	DefaultType   string
	PeriodType    profile.ValueType
	Period        int64
	DurationNanos int64
	TimeNanos     int64
	Comments      []string

	// Lines says Funcs are (function, line) pairs; HasLines that some
	// frame has a line number (profiles from perf carry none).
	Lines, HasLines bool

	// Funcs are the functions the stacks' frames index.
	Funcs  []Func
	frames []int32 // stack i is frames[off[i]:off[i+1]]
	off    []int32
	vals   []int64 // stack i has vals[i*nv : (i+1)*nv], nv = len(SampleTypes)
}

// Func is one function of a Set (at line granularity, one line
// of a function).
type Func struct {
	Name, File string
	// Line is the source line at line granularity (0 when unknown or at
	// function granularity); StartLine is the function's first line when
	// the profile records it.
	Line, StartLine int64
}

// NumStacks is how many distinct stacks s holds.
func (s *Set) NumStacks() int { return len(s.off) - 1 }

// Stack is stack i's frames, indices into Funcs, leaf first.
func (s *Set) Stack(i int) []int32 { return s.frames[s.off[i]:s.off[i+1]] }

// Value is stack i's value of sample type vi.
func (s *Set) Value(i, vi int) int64 { return s.vals[i*len(s.SampleTypes)+vi] }

// SampleIndex resolves a sample type name or number; "" picks the profile's
// default sample type, else the last one, like pprof.
func (s *Set) SampleIndex(name string) (int, error) {
	n := len(s.SampleTypes)
	if n == 0 {
		return 0, fmt.Errorf("selecting sample type: %w: profile has none", ErrNoSampleType)
	}
	if name == "" {
		name = s.DefaultType
		if name == "" {
			return n - 1, nil
		}
	}
	if i, err := strconv.Atoi(name); err == nil {
		if i < 0 || i >= n {
			return 0, fmt.Errorf("selecting sample type: %w: index %d out of range [0, %d)", ErrNoSampleType, i, n)
		}
		return i, nil
	}
	for i, st := range s.SampleTypes {
		if st.Type == name {
			return i, nil
		}
	}
	valid := make([]string, n)
	for i, st := range s.SampleTypes {
		valid[i] = st.Type
	}
	return 0, fmt.Errorf("selecting sample type: %w: %q not in profile; valid: %v", ErrNoSampleType, name, valid)
}

// ErrNoSampleType is a sample type (--sample) the profile does not have.
var ErrNoSampleType = errors.New("no such sample type")

// stackBuilder interns functions by name and stacks by their frame lists.
type stackBuilder struct {
	set      *Set
	funcIdx  map[string]int32
	stackIdx map[string]int32
	key      []byte
}

func newStackBuilder() *stackBuilder {
	return &stackBuilder{
		set:      &Set{off: []int32{0}},
		funcIdx:  map[string]int32{},
		stackIdx: map[string]int32{},
	}
}

// newLineBuilder builds a Set at line granularity.
func newLineBuilder() *stackBuilder {
	b := newStackBuilder()
	b.set.Lines = true
	return b
}

// function returns the index of the function named name.
func (b *stackBuilder) function(name, file string) int32 { return b.frame(name, file, 0, 0) }

// frame returns the index of the function named name (at line
// granularity, of its line).
func (b *stackBuilder) frame(name, file string, line, start int64) int32 {
	key := name
	if funcname.Interpreted(file) {
		key += "\x00" + file
	}
	if b.set.Lines {
		key += "\x00" + strconv.FormatInt(line, 10)
	} else {
		line = 0
	}
	if i, ok := b.funcIdx[key]; ok {
		return i
	}
	i := int32(len(b.set.Funcs))
	b.set.Funcs = append(b.set.Funcs, Func{Name: name, File: file, Line: line, StartLine: start})
	b.funcIdx[key] = i
	return i
}

// add adds values for the stack frames (leaf first), merging equal stacks.
// A leaf in the runtime's asynchronous preemption handler is dropped: the
// sample landed while the scheduler was interrupting the function below it,
// whose cost it is.
func (b *stackBuilder) add(frames []int32, vals []int64) {
	s := b.set
	frames = trimPreempt(s, frames)
	nv := len(s.SampleTypes)
	b.key = b.key[:0]
	for _, f := range frames {
		b.key = append(b.key, byte(f), byte(f>>8), byte(f>>16), byte(f>>24))
	}
	if i, ok := b.stackIdx[string(b.key)]; ok {
		for j := 0; j < nv && j < len(vals); j++ {
			s.vals[int(i)*nv+j] += vals[j]
		}
		return
	}
	b.stackIdx[string(b.key)] = int32(s.NumStacks())
	s.frames = append(s.frames, frames...)
	s.off = append(s.off, int32(len(s.frames)))
	for j := 0; j < nv; j++ {
		var v int64
		if j < len(vals) {
			v = vals[j]
		}
		s.vals = append(s.vals, v)
	}
}

// preemptFrames are the runtime's asynchronous preemption entry points.
var preemptFrames = map[string]bool{"runtime.asyncPreempt": true, "runtime.asyncPreempt2": true}

// trimPreempt drops leaf frames of the runtime's preemption handler (see add).
func trimPreempt(s *Set, frames []int32) []int32 {
	for len(frames) > 1 && preemptFrames[s.Funcs[frames[0]].Name] {
		frames = frames[1:]
	}
	return frames
}

// binaryName names code without symbols, or a function with a blank name,
// as pprof's functions and lines views do: by its binary ("[libc.so.6]"),
// one row per binary whatever the address; "[unknown]" without one (pprof
// says "<unknown>"; the brackets mark it as code that is not the user's).
func binaryName(mappingFile string) string {
	if mappingFile == "" {
		return "[unknown]"
	}
	return "[" + path.Base(mappingFile) + "]"
}

// FromProfile reduces p to a Set at function granularity.
func FromProfile(p *profile.Profile) *Set { return reduce(p, newStackBuilder()) }

// FromProfileLines reduces p to a Set at line granularity.
func FromProfileLines(p *profile.Profile) *Set { return reduce(p, newLineBuilder()) }

func reduce(p *profile.Profile, b *stackBuilder) *Set {
	s := b.set
	for _, st := range p.SampleType {
		s.SampleTypes = append(s.SampleTypes, *st)
	}
	s.DefaultType = p.DefaultSampleType
	if p.PeriodType != nil {
		s.PeriodType = *p.PeriodType
	}
	s.Period = p.Period
	s.DurationNanos, s.TimeNanos = p.DurationNanos, p.TimeNanos
	s.Comments = append(s.Comments, p.Comments...)
	pr := newPruner(p.DropFrames, p.KeepFrames)
	type locInfo struct {
		frames []int32
		state  pruneState
	}
	locs := map[*profile.Location]locInfo{}
	var frames []int32
	var states []pruneState
	for _, smp := range p.Sample {
		frames, states = frames[:0], states[:0]
		stack := smp.Location
		if pr != nil {
			for _, loc := range stack {
				li, ok := locs[loc]
				if !ok {
					li.frames, li.state = b.locationFrames(loc, pr)
					locs[loc] = li
				}
				states = append(states, li.state)
			}
			lo, hi := pruneStack(states)
			stack = stack[lo:hi]
		}
		for _, loc := range stack {
			li, ok := locs[loc]
			if !ok {
				li.frames, li.state = b.locationFrames(loc, pr)
				locs[loc] = li
			}
			frames = append(frames, li.frames...)
		}
		b.add(frames, smp.Value)
	}
	return s
}

// locationFrames expands a location into its frames, innermost first, and
// tells how drop_frames prunes it (pr may be nil).
func (b *stackBuilder) locationFrames(loc *profile.Location, pr *pruner) ([]int32, pruneState) {
	lines := loc.Line
	state := keepAll
	if pr != nil {
		names := make([]string, len(lines))
		for i, ln := range lines {
			if ln.Function != nil {
				names[i] = ln.Function.Name
			}
		}
		var from int
		from, state = pr.location(names)
		lines = lines[from:]
	}
	mapFile := ""
	if loc.Mapping != nil {
		mapFile = loc.Mapping.File
	}
	var out []int32
	for _, ln := range lines {
		fn := ln.Function
		if fn == nil {
			continue
		}
		if ln.Line > 0 {
			b.set.HasLines = true
		}
		if fn.Name == "" {
			// Named by its binary, one row whatever its line (as the
			// lean decoder does).
			out = append(out, b.function(binaryName(mapFile), mapFile))
			continue
		}
		out = append(out, b.frame(fn.Name, fn.Filename, ln.Line, fn.StartLine))
	}
	if len(out) == 0 {
		out = append(out, b.function(binaryName(mapFile), mapFile))
	}
	return out, state
}
