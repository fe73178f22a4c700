package analysis

import (
	"encoding/binary"
	"fmt"

	"github.com/google/pprof/profile"
)

// finish resolves names and turns location stacks into function stacks.
func (d *leanDecoder) finish() (*stackSet, error) {
	if len(d.strs) == 0 || d.strs[0] != "" {
		return nil, fmt.Errorf("decoding profile: string table must start with an empty string")
	}
	nstacks := len(d.stackIdx)
	if nstacks > 0 && d.nv != len(d.sampleTypes) {
		return nil, fmt.Errorf("decoding profile: samples have %d values for %d sample types", d.nv, len(d.sampleTypes))
	}
	b := newStackBuilder()
	s := b.set
	var err error
	vt := func(v [2]int64) profile.ValueType {
		var t profile.ValueType
		if t.Type, err = d.str(v[0]); err == nil {
			t.Unit, err = d.str(v[1])
		}
		return t
	}
	for _, st := range d.sampleTypes {
		if s.sampleTypes = append(s.sampleTypes, vt(st)); err != nil {
			return nil, err
		}
	}
	if s.periodType = vt(d.periodType); err != nil {
		return nil, err
	}
	if s.defaultType, err = d.str(d.defaultType); err != nil {
		return nil, err
	}
	s.period, s.durationNanos = d.period, d.duration
	locFrames, err := d.locationFrames(b)
	if err != nil {
		return nil, err
	}
	// Stacks are distinct by location, and nearly always by function too,
	// so they are appended without merging (the analyses do not need it).
	s.vals = make([]int64, 0, nstacks*d.nv)
	s.off = make([]int32, 1, nstacks+1)
	nframes := 0
	for _, key := range d.keys {
		for b := []byte(key); len(b) > 0; {
			id, n := binary.Uvarint(b)
			b = b[n:]
			nframes += len(locFrames[id])
		}
	}
	s.frames = make([]int32, 0, nframes)
	var frames []int32
	for i, key := range d.keys {
		frames = frames[:0]
		for b := []byte(key); len(b) > 0; {
			id, n := binary.Uvarint(b)
			b = b[n:]
			lf, ok := locFrames[id]
			if !ok {
				return nil, fmt.Errorf("decoding profile: sample refers to unknown location %d", id)
			}
			frames = append(frames, lf...)
		}
		frames = trimPreempt(s, frames)
		s.frames = append(s.frames, frames...)
		s.off = append(s.off, int32(len(s.frames)))
		s.vals = append(s.vals, d.vals[int(i)*d.nv:int(i+1)*d.nv]...)
	}
	return s, nil
}

// locationFrames maps each location id to its frames, innermost first.
func (d *leanDecoder) locationFrames(b *stackBuilder) (map[uint64][]int32, error) {
	funcs := make(map[uint64]int32, len(d.funcs))
	for _, fn := range d.funcs {
		if fn.id == 0 {
			return nil, fmt.Errorf("decoding profile: function with id 0")
		}
		if _, dup := funcs[fn.id]; dup {
			return nil, fmt.Errorf("decoding profile: duplicate function id %d", fn.id)
		}
		name, err := d.str(fn.name)
		if err != nil {
			return nil, err
		}
		file, err := d.str(fn.file)
		if err != nil {
			return nil, err
		}
		funcs[fn.id] = b.function(name, file)
	}
	out := make(map[uint64][]int32, len(d.locs))
	for _, loc := range d.locs {
		if loc.id == 0 {
			return nil, fmt.Errorf("decoding profile: location with id 0")
		}
		if _, dup := out[loc.id]; dup {
			return nil, fmt.Errorf("decoding profile: duplicate location id %d", loc.id)
		}
		var fr []int32
		for _, fid := range loc.funcIDs {
			if fid == 0 {
				continue
			}
			f, ok := funcs[fid]
			if !ok {
				return nil, fmt.Errorf("decoding profile: location %d refers to unknown function %d", loc.id, fid)
			}
			fr = append(fr, f)
		}
		if len(fr) == 0 {
			file := ""
			if loc.mapping != 0 {
				fi, ok := d.maps[loc.mapping]
				if !ok {
					return nil, fmt.Errorf("decoding profile: location %d refers to unknown mapping %d", loc.id, loc.mapping)
				}
				var err error
				if file, err = d.str(fi); err != nil {
					return nil, err
				}
			}
			fr = append(fr, b.function(locationName(loc.addr, file), file))
		}
		out[loc.id] = fr
	}
	return out, nil
}
