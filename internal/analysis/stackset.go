package analysis

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/google/pprof/profile"
)

// stackSet is a profile reduced to what the analyses read: the distinct call
// stacks, each a list of function indices (leaf first, inlined frames
// expanded) with the summed sample values. Functions are keyed by name, as
// pprof's default "functions" granularity does.
type stackSet struct {
	sampleTypes   []profile.ValueType
	defaultType   string
	periodType    profile.ValueType
	period        int64
	durationNanos int64

	funcs  []funcInfo
	frames []int32 // stack i is frames[off[i]:off[i+1]]
	off    []int32
	vals   []int64 // stack i has vals[i*nv : (i+1)*nv], nv = len(sampleTypes)
}

// funcInfo is one function of a stackSet.
type funcInfo struct {
	Name, File string
}

func (s *stackSet) numStacks() int { return len(s.off) - 1 }

func (s *stackSet) stack(i int) []int32 { return s.frames[s.off[i]:s.off[i+1]] }

func (s *stackSet) value(i, vi int) int64 { return s.vals[i*len(s.sampleTypes)+vi] }

// sampleIndex resolves a sample type name or number; "" picks the profile's
// default sample type, else the last one, like pprof.
func (s *stackSet) sampleIndex(name string) (int, error) {
	n := len(s.sampleTypes)
	if n == 0 {
		return 0, fmt.Errorf("selecting sample type: %w: profile has none", ErrNoSampleType)
	}
	if name == "" {
		name = s.defaultType
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
	for i, st := range s.sampleTypes {
		if st.Type == name {
			return i, nil
		}
	}
	valid := make([]string, n)
	for i, st := range s.sampleTypes {
		valid[i] = st.Type
	}
	return 0, fmt.Errorf("selecting sample type: %w: %q not in profile; valid: %v", ErrNoSampleType, name, valid)
}

// ErrNoSampleType is a sample type (--sample) the profile does not have.
var ErrNoSampleType = errors.New("no such sample type")

// stackBuilder interns functions by name and stacks by their frame lists.
type stackBuilder struct {
	set      *stackSet
	funcIdx  map[string]int32
	stackIdx map[string]int32
	key      []byte
}

func newStackBuilder() *stackBuilder {
	return &stackBuilder{
		set:      &stackSet{off: []int32{0}},
		funcIdx:  map[string]int32{},
		stackIdx: map[string]int32{},
	}
}

// function returns the index of the function named name.
func (b *stackBuilder) function(name, file string) int32 {
	if i, ok := b.funcIdx[name]; ok {
		return i
	}
	i := int32(len(b.set.funcs))
	b.set.funcs = append(b.set.funcs, funcInfo{Name: name, File: file})
	b.funcIdx[name] = i
	return i
}

// add adds values for the stack frames (leaf first), merging equal stacks.
// A leaf in the runtime's asynchronous preemption handler is dropped: the
// sample landed while the scheduler was interrupting the function below it,
// whose cost it is.
func (b *stackBuilder) add(frames []int32, vals []int64) {
	s := b.set
	frames = trimPreempt(s, frames)
	nv := len(s.sampleTypes)
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
	b.stackIdx[string(b.key)] = int32(s.numStacks())
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
func trimPreempt(s *stackSet, frames []int32) []int32 {
	for len(frames) > 1 && preemptFrames[s.funcs[frames[0]].Name] {
		frames = frames[1:]
	}
	return frames
}

// locationName names a location without symbols, as pprof does.
func locationName(addr uint64, mappingFile string) string {
	if mappingFile != "" {
		return fmt.Sprintf("%#x (%s)", addr, mappingFile)
	}
	return fmt.Sprintf("%#x", addr)
}

// fromProfile reduces p to a stackSet.
func fromProfile(p *profile.Profile) *stackSet {
	b := newStackBuilder()
	s := b.set
	for _, st := range p.SampleType {
		s.sampleTypes = append(s.sampleTypes, *st)
	}
	s.defaultType = p.DefaultSampleType
	if p.PeriodType != nil {
		s.periodType = *p.PeriodType
	}
	s.period = p.Period
	s.durationNanos = p.DurationNanos
	locFrames := map[*profile.Location][]int32{}
	var frames []int32
	for _, smp := range p.Sample {
		frames = frames[:0]
		for _, loc := range smp.Location {
			lf, ok := locFrames[loc]
			if !ok {
				lf = b.locationFrames(loc)
				locFrames[loc] = lf
			}
			frames = append(frames, lf...)
		}
		b.add(frames, smp.Value)
	}
	return s
}

// locationFrames expands a location into its frames, innermost first.
func (b *stackBuilder) locationFrames(loc *profile.Location) []int32 {
	var out []int32
	for _, ln := range loc.Line {
		if ln.Function == nil {
			continue
		}
		out = append(out, b.function(ln.Function.Name, ln.Function.Filename))
	}
	if len(out) == 0 {
		file := ""
		if loc.Mapping != nil {
			file = loc.Mapping.File
		}
		out = append(out, b.function(locationName(loc.Address, file), file))
	}
	return out
}
