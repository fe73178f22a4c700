package walltime

import (
	"slices"
	"sort"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// Sample types of Analysis.Profile, before the one per kind.
const (
	SampleWall   = runfmt.WallSample   // every kind
	SampleOffCPU = runfmt.OffCPUSample // every kind but running
)

// LabelKey is the sample label that names a profile sample's runfmt.Wait.
const LabelKey = runfmt.WaitLabel

// traceKinds are the kinds of wall time a Go trace tells, in report order:
// runfmt's but TimeOther (a trace always says why a goroutine waits).
var traceKinds = slices.DeleteFunc(runfmt.TimeKinds.List(), func(k runfmt.TimeKind) bool { return k == runfmt.TimeOther })

// profileBuilder turns interned stacks into pprof locations and functions.
type profileBuilder struct {
	p     *profile.Profile
	locs  map[frame]*profile.Location
	funcs map[[2]string]*profile.Function
}

func newProfileBuilder(types []*profile.ValueType) *profileBuilder {
	return &profileBuilder{
		p:     &profile.Profile{SampleType: types},
		locs:  map[frame]*profile.Location{},
		funcs: map[[2]string]*profile.Function{},
	}
}

func (b *profileBuilder) location(f frame) *profile.Location {
	if l := b.locs[f]; l != nil {
		return l
	}
	fk := [2]string{f.fn, f.file}
	fn := b.funcs[fk]
	if fn == nil {
		fn = &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: f.fn, SystemName: f.fn, Filename: f.file}
		b.funcs[fk] = fn
		b.p.Function = append(b.p.Function, fn)
	}
	l := &profile.Location{ID: uint64(len(b.p.Location) + 1), Address: f.pc, Line: []profile.Line{{Function: fn, Line: f.line}}}
	b.locs[f] = l
	b.p.Location = append(b.p.Location, l)
	return l
}

// unknownFrame stands for time whose stack the trace did not give.
var unknownFrame = frame{fn: "[unknown stack]"}

func (b *profileBuilder) stack(t *stackTable, id int32) []*profile.Location {
	if id < 0 || int(id) >= len(t.frames) {
		return []*profile.Location{b.location(unknownFrame)}
	}
	fs := t.frames[id]
	locs := make([]*profile.Location, len(fs))
	for i, f := range fs {
		locs[i] = b.location(f)
	}
	return locs
}

// profile is the request goroutines' wall time by stack and wait.
func (a *analyzer) profile() *profile.Profile {
	types := []*profile.ValueType{{Type: SampleWall, Unit: "nanoseconds"}, {Type: SampleOffCPU, Unit: "nanoseconds"}}
	for _, k := range traceKinds {
		types = append(types, &profile.ValueType{Type: string(k), Unit: "nanoseconds"})
	}
	b := newProfileBuilder(types)
	b.p.DefaultSampleType = SampleWall
	keys := make([]accKey, 0, len(a.acc))
	for k := range a.acc {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].stack != keys[j].stack {
			return keys[i].stack < keys[j].stack
		}
		return runfmt.Waits.Index(keys[i].wait) < runfmt.Waits.Index(keys[j].wait)
	})
	for _, k := range keys {
		ns := a.acc[k]
		if ns <= 0 {
			continue
		}
		v := make([]int64, len(types))
		v[0] = ns
		kind := k.wait.Kind()
		if kind != runfmt.TimeRunning {
			v[1] = ns
		}
		v[2+slices.Index(traceKinds, kind)] = ns
		b.p.Sample = append(b.p.Sample, &profile.Sample{
			Location: b.stack(&a.stacks, k.stack), Value: v,
			Label: map[string][]string{LabelKey: {string(k.wait)}},
		})
	}
	a.meta(b.p)
	return b.p
}

// holderProfile charges lock, pool and Cond waits to the stacks that ended
// them: where the holder released the lock (like the runtime's mutex
// profile).
func (a *analyzer) holderProfile() *profile.Profile {
	b := newProfileBuilder([]*profile.ValueType{{Type: "delay", Unit: "nanoseconds"}})
	ids := make([]int32, 0, len(a.holders))
	for id := range a.holders {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		b.p.Sample = append(b.p.Sample, &profile.Sample{Location: b.stack(&a.stacks, id), Value: []int64{a.holders[id]}})
	}
	a.meta(b.p)
	return b.p
}

func (a *analyzer) meta(p *profile.Profile) {
	p.DurationNanos = int64(a.last.Sub(a.first))
	if !a.out.Start.IsZero() {
		p.TimeNanos = a.out.Start.UnixNano()
	}
	p.Comments = []string{"perflab: wall time of request goroutines from a Go " + a.out.GoVersion + " execution trace"}
}
