package stacks

import "github.com/google/pprof/profile"

// SplitLeaves is s with one sample type, total, whose stacks are s's
// split by the sample types parts names: stack i's value of each part
// becomes a stack of its own under a leaf frame named parts[type] (as
// pprof's -tagleaf puts a tag under each stack). A value of total that no
// part accounts for stays on the stack without a leaf (parts that add up
// to more than total are drawn as they are). An off-CPU flame
// graph so tells a network read's wait from the time the goroutine that
// made it then waited for a CPU at the same stack.
func (s *Set) SplitLeaves(total int, parts map[int]string) *Set {
	b := newStackBuilder()
	b.set.SampleTypes = []profile.ValueType{s.SampleTypes[total]}
	b.set.DefaultType = s.SampleTypes[total].Type
	b.set.PeriodType, b.set.Period = s.PeriodType, s.Period
	b.set.DurationNanos, b.set.TimeNanos = s.DurationNanos, s.TimeNanos
	b.set.Comments = append(b.set.Comments, s.Comments...)
	b.set.Lines, b.set.HasLines = s.Lines, s.HasLines
	b.set.Funcs = append(b.set.Funcs, s.Funcs...)
	leaf := map[int]int32{}
	for vi := range s.SampleTypes {
		if name, ok := parts[vi]; ok {
			leaf[vi] = int32(len(b.set.Funcs))
			b.set.Funcs = append(b.set.Funcs, Func{Name: name})
		}
	}
	var frames []int32
	for i := 0; i < s.NumStacks(); i++ {
		st := s.Stack(i)
		rest := s.Value(i, total)
		for vi := range s.SampleTypes {
			f, ok := leaf[vi]
			if v := s.Value(i, vi); ok && v != 0 {
				frames = append(append(frames[:0], f), st...)
				b.add(frames, []int64{v})
				rest -= v
			}
		}
		if rest > 0 {
			b.add(append(frames[:0], st...), []int64{rest})
		}
	}
	return b.set
}
