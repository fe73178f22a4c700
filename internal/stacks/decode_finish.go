package stacks

import (
	"encoding/binary"
	"fmt"

	"github.com/google/pprof/profile"
)

// finish resolves names and turns location stacks into function stacks.
func (d *leanDecoder) finish() (*Set, error) {
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
		if s.SampleTypes = append(s.SampleTypes, vt(st)); err != nil {
			return nil, err
		}
	}
	if s.PeriodType = vt(d.periodType); err != nil {
		return nil, err
	}
	if s.DefaultType, err = d.str(d.defaultType); err != nil {
		return nil, err
	}
	s.Period, s.DurationNanos, s.TimeNanos = d.period, d.duration, d.timeNanos
	for _, c := range d.comments {
		cs, err := d.str(c)
		if err != nil {
			return nil, err
		}
		s.Comments = append(s.Comments, cs)
	}
	drop, keep, err := d.strPair(d.dropFrames, d.keepFrames)
	if err != nil {
		return nil, err
	}
	pr := newPruner(drop, keep)
	locFrames, err := d.locationFrames(b, pr)
	if err != nil {
		return nil, err
	}
	d.locs, d.locLines = nil, nil // done with: let the collector have them
	// Stacks are distinct by location, and nearly always by function too,
	// so they are appended without merging (the analyses do not need it).
	s.vals = make([]int64, 0, nstacks*d.nv)
	s.off = make([]int32, 1, nstacks+1)
	nframes := 0
	for _, key := range d.keys {
		for b := []byte(key); len(b) > 0; {
			id, n := binary.Uvarint(b)
			b = b[n:]
			f, _, _ := locFrames.get(id)
			nframes += len(f)
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
			lf, state, ok := locFrames.get(id)
			if !ok {
				return nil, fmt.Errorf("decoding profile: sample refers to unknown location %d", id)
			}
			if pr != nil {
				ids, states = append(ids, id), append(states, state)
				continue
			}
			frames = append(frames, lf...)
		}
		if pr != nil {
			lo, hi := pruneStack(states)
			for _, id := range ids[lo:hi] {
				lf, _, _ := locFrames.get(id)
				frames = append(frames, lf...)
			}
		}
		frames = trimPreempt(s, frames)
		s.frames = append(s.frames, frames...)
		s.off = append(s.off, int32(len(s.frames)))
		s.vals = append(s.vals, d.vals[int(i)*d.nv:int(i+1)*d.nv]...)
	}
	return s, nil
}

// locTable is each location's frames, innermost first, and how
// drop_frames prunes it, in flat slices (a large profile has millions of
// locations): by id through a slice when the ids are dense, as profiles
// number them, else through a map.
type locTable struct {
	dense  []int32 // id -> entry + 1 (0: none)
	sparse map[uint64]int32
	frames []int32 // entry i has frames[off[i]:off[i+1]]
	off    []int32
	state  []pruneState
}

func newLocTable(locs []rawLocation) *locTable {
	t := &locTable{off: make([]int32, 1, len(locs)+1), state: make([]pruneState, 0, len(locs))}
	var maxID uint64
	for _, l := range locs {
		maxID = max(maxID, l.id)
	}
	if maxID <= 4*uint64(len(locs))+64 {
		t.dense = make([]int32, maxID+1)
	} else {
		t.sparse = make(map[uint64]int32, len(locs))
	}
	return t
}

// add records the next location's entry; false if its id was seen.
func (t *locTable) add(id uint64, frames []int32, state pruneState) bool {
	if _, _, seen := t.get(id); seen {
		return false
	}
	e := int32(len(t.state))
	if t.dense != nil {
		t.dense[id] = e + 1
	} else {
		t.sparse[id] = e
	}
	t.frames = append(t.frames, frames...)
	t.off = append(t.off, int32(len(t.frames)))
	t.state = append(t.state, state)
	return true
}

// get returns a location's frames and pruning state.
func (t *locTable) get(id uint64) ([]int32, pruneState, bool) {
	var e int32
	if t.dense != nil {
		if id >= uint64(len(t.dense)) || t.dense[id] == 0 {
			return nil, keepAll, false
		}
		e = t.dense[id] - 1
	} else {
		var ok bool
		if e, ok = t.sparse[id]; !ok {
			return nil, keepAll, false
		}
	}
	return t.frames[t.off[e]:t.off[e+1]], t.state[e], true
}

// locationFrames maps each location id to its frames (pr may be nil).
func (d *leanDecoder) locationFrames(b *stackBuilder, pr *pruner) (*locTable, error) {
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
		name, file, err := d.strPair(fn.name, fn.file)
		if err != nil {
			return nil, err
		}
		fi := fnInfo{name: name, file: file, start: fn.start, idx: -1}
		if !d.lines && name != "" {
			fi.idx = b.function(name, file)
		}
		funcs[fn.id] = fi
	}
	out := newLocTable(d.locs)
	var names []string
	var frames []int32
	for _, loc := range d.locs {
		if loc.id == 0 {
			return nil, fmt.Errorf("decoding profile: location with id 0")
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
		lines := d.locLines[loc.off : loc.off+loc.n]
		state := keepAll
		frames = frames[:0]
		if pr != nil {
			names = names[:0]
			for _, ln := range lines {
				names = append(names, funcs[ln.fid].name)
			}
			var from int
			from, state = pr.location(names)
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
				b.set.HasLines = true
			}
			switch {
			case fi.name == "":
				frames = append(frames, b.function(binaryName(mapFile), mapFile))
			case fi.idx >= 0:
				frames = append(frames, fi.idx)
			default:
				frames = append(frames, b.frame(fi.name, fi.file, ln.line, fi.start))
			}
		}
		if len(frames) == 0 {
			frames = append(frames, b.function(binaryName(mapFile), mapFile))
		}
		if !out.add(loc.id, frames, state) {
			return nil, fmt.Errorf("decoding profile: duplicate location id %d", loc.id)
		}
	}
	return out, nil
}
