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
	if d.lines {
		b = newLineBuilder()
	}
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
	s.period, s.durationNanos, s.timeNanos = d.period, d.duration, d.timeNanos
	for _, c := range d.comments {
		cs, err := d.str(c)
		if err != nil {
			return nil, err
		}
		s.comments = append(s.comments, cs)
	}
	drop, err := d.str(d.dropFrames)
	if err != nil {
		return nil, err
	}
	keep, err := d.str(d.keepFrames)
	if err != nil {
		return nil, err
	}
	pr := newPruner(drop, keep)
	locFrames, err := d.locationFrames(b, pr)
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
			nframes += len(locFrames[id].frames)
		}
	}
	s.frames = make([]int32, 0, nframes)
	var frames []int32
	var ids []uint64
	var states []pruneState
	for i, key := range d.keys {
		frames, ids, states = frames[:0], ids[:0], states[:0]
		for b := []byte(key); len(b) > 0; {
			id, n := binary.Uvarint(b)
			b = b[n:]
			lf, ok := locFrames[id]
			if !ok {
				return nil, fmt.Errorf("decoding profile: sample refers to unknown location %d", id)
			}
			if pr != nil {
				ids, states = append(ids, id), append(states, lf.state)
				continue
			}
			frames = append(frames, lf.frames...)
		}
		if pr != nil {
			lo, hi := pruneStack(states)
			for _, id := range ids[lo:hi] {
				frames = append(frames, locFrames[id].frames...)
			}
		}
		frames = trimPreempt(s, frames)
		s.frames = append(s.frames, frames...)
		s.off = append(s.off, int32(len(s.frames)))
		s.vals = append(s.vals, d.vals[int(i)*d.nv:int(i+1)*d.nv]...)
	}
	return s, nil
}

// locFrame is a location's frames, innermost first, and how drop_frames
// prunes it.
type locFrame struct {
	frames []int32
	state  pruneState
}

// locationFrames maps each location id to its frames (pr may be nil).
func (d *leanDecoder) locationFrames(b *stackBuilder, pr *pruner) (map[uint64]locFrame, error) {
	type fnInfo struct {
		name, file string
		start      int64
		idx        int32 // at function granularity
	}
	funcs := make(map[uint64]fnInfo, len(d.funcs))
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
		fi := fnInfo{name: name, file: file, start: fn.start, idx: -1}
		if !d.lines && name != "" {
			fi.idx = b.function(name, file)
		}
		funcs[fn.id] = fi
	}
	out := make(map[uint64]locFrame, len(d.locs))
	var names []string
	for _, loc := range d.locs {
		if loc.id == 0 {
			return nil, fmt.Errorf("decoding profile: location with id 0")
		}
		if _, dup := out[loc.id]; dup {
			return nil, fmt.Errorf("decoding profile: duplicate location id %d", loc.id)
		}
		mapFile := ""
		if loc.mapping != 0 {
			fi, ok := d.maps[loc.mapping]
			if !ok {
				return nil, fmt.Errorf("decoding profile: location %d refers to unknown mapping %d", loc.id, loc.mapping)
			}
			var err error
			if mapFile, err = d.str(fi); err != nil {
				return nil, err
			}
		}
		lines := loc.lines
		var lf locFrame
		if pr != nil {
			names = names[:0]
			for _, ln := range lines {
				names = append(names, funcs[ln.fid].name)
			}
			var from int
			from, lf.state = pr.location(names)
			lines = lines[from:]
		}
		for _, ln := range lines {
			if ln.fid == 0 {
				continue
			}
			fi, ok := funcs[ln.fid]
			if !ok {
				return nil, fmt.Errorf("decoding profile: location %d refers to unknown function %d", loc.id, ln.fid)
			}
			if ln.line > 0 {
				b.set.hasLines = true
			}
			switch {
			case fi.name == "":
				lf.frames = append(lf.frames, b.function(binaryName(mapFile), mapFile))
			case fi.idx >= 0:
				lf.frames = append(lf.frames, fi.idx)
			default:
				lf.frames = append(lf.frames, b.frame(fi.name, fi.file, ln.line, fi.start))
			}
		}
		if len(lf.frames) == 0 {
			lf.frames = append(lf.frames, b.function(binaryName(mapFile), mapFile))
		}
		out[loc.id] = lf
	}
	return out, nil
}
