package ownership

import (
	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// Thresholds of the depth verdict.
const (
	// ShallowFrames is the most frames a stack perf could not walk
	// usually has: the leaf and, at best, one caller.
	ShallowFrames = 2
	// ShallowShare is the share of samples with ShallowFrames frames or
	// fewer from which stacks are said not to reach the user's code.
	ShallowShare = 0.5
	// NoUserShare is the share of samples without a frame of user code
	// from which stacks are said not to reach it.
	NoUserShare = 0.9
	// depthBuckets bounds Depth.Frames; the last bucket holds deeper
	// stacks too.
	depthBuckets = 64
)

// Depth is how deep a profile's stacks are and whether they reach the
// user's code. Values are in the profile's unit for the sample type
// read (samples, CPU nanoseconds). Frames count inlined frames and leave
// the kernel's out: they are what a walk of the program's stack found.
type Depth struct {
	// Total is the value of all samples; Judged leaves out the samples of
	// the JIT compiler and the garbage collector, and in Go those wholly
	// in the runtime (its scheduler, its spins on its own locks), whose
	// stacks never reach user code.
	Total  int64 `json:"total"`
	Judged int64 `json:"judged"`
	// Frames[d] is the value of the samples with d frames (the last
	// bucket: that many or more).
	Frames []int64 `json:"frames"`
	// Median is the median number of frames of the judged samples.
	Median int `json:"median"`
	// Shallow is the value of judged samples with at most ShallowFrames
	// frames, NoUser of those without a frame of user code, Unnamed of
	// those whose leaf no one could name.
	Shallow int64             `json:"shallow"`
	NoUser  int64             `json:"no_user"`
	Unnamed int64             `json:"unnamed"`
	Verdict runfmt.StackReach `json:"verdict"`
}

// Depth measures the depth of the profile's stacks, weighting each
// sample by its value at valueIndex (pprof's sample index), and judges
// whether they reach user code, for the service's runtime.
func (c *Classified) Depth(p *profile.Profile, valueIndex int) Depth {
	d := Depth{Frames: make([]int64, depthBuckets+1)}
	goRuntime := c.m.runtime() == LangGo
	for _, s := range p.Sample {
		if valueIndex < 0 || valueIndex >= len(s.Value) {
			continue
		}
		v := s.Value[valueIndex]
		d.Total += v
		if w := c.Work(s); w == JIT || w == GC || goRuntime && c.runtimeOnly(s) {
			continue
		}
		d.Judged += v
		n, leaf := c.frames(s)
		d.Frames[min(n, depthBuckets)] += v
		if n <= ShallowFrames {
			d.Shallow += v
		}
		if leaf == Unknown {
			d.Unnamed += v
		}
		if !c.HasUser(s) {
			d.NoUser += v
		}
	}
	d.Median = median(d.Frames, d.Judged)
	d.Verdict = c.m.verdict(d, c.seesLanguage(p, c.m.runtime()))
	return d
}

// runtimeOnly reports whether every frame of a sample is the runtime's:
// in Go, whose profiler walks whole stacks, the runtime's own goroutines
// and threads (the scheduler's g0, a thread spinning on a runtime lock),
// which have no caller in the program. On a busy machine such samples
// can be half a service's CPU; they are not stacks that stop short of its
// code.
func (c *Classified) runtimeOnly(s *profile.Sample) bool {
	for _, loc := range s.Location {
		for _, cl := range c.Location(loc) {
			if cl.Kind != Runtime {
				return false
			}
		}
	}
	return len(s.Location) > 0
}

// seesLanguage reports whether a frame of p is code of the language lang
// (not its runtime, not C): whether the profiler saw the program's own
// frames.
func (c *Classified) seesLanguage(p *profile.Profile, lang string) bool {
	for _, loc := range p.Location {
		for _, cl := range c.Location(loc) {
			if cl.Lang == lang && cl.mark&markScript != 0 {
				return true
			}
		}
	}
	return false
}

// frames counts a sample's frames outside the kernel and returns the
// kind of its first such frame.
func (c *Classified) frames(s *profile.Sample) (int, Kind) {
	n := 0
	leaf := Unknown
	for _, loc := range s.Location {
		for _, cl := range c.Location(loc) {
			if cl.Package == pkgKernel && cl.Kind == Runtime {
				continue
			}
			if n == 0 {
				leaf = cl.Kind
			}
			n++
		}
	}
	return n, leaf
}

// median returns the bucket holding the middle of total.
func median(buckets []int64, total int64) int {
	if total <= 0 {
		return 0
	}
	var acc int64
	for i, v := range buckets {
		acc += v
		if 2*acc >= total {
			return i
		}
	}
	return len(buckets) - 1
}

// binaryFacts puts in v what the binaries read say about frame pointers
// and symbols: the first that lacks either.
func (m *Model) binaryFacts(v *runfmt.StackReach) {
	if m == nil {
		return
	}
	for _, b := range m.spec.Binaries {
		switch {
		case !b.Symbols && b.Lang != LangGo:
			v.Binary, v.NoSymbols = b.Path, true
			return
		case b.FramePointers == FramePointersNo:
			v.Binary, v.FramePointerShare = b.Path, b.FramePointerShare
			return
		}
	}
}

// verdict judges a depth for m's runtime: whether the stacks reach the
// user's code, and if not, what was seen, with its figures, and what
// makes them (the words are made where the verdict is shown).
func (m *Model) verdict(d Depth, seesLang bool) runfmt.StackReach {
	v := runfmt.StackReach{Reach: true, MedianFrames: d.Median}
	if d.Judged <= 0 {
		return v
	}
	lang := m.runtime()
	share := func(n int64) float64 { return float64(n) / float64(d.Judged) }
	// py-spy and rbspy read whole stacks, and Go keeps frame pointers
	// and unwinds its own: their shallow stacks are shallow code (or Go's
	// runtime._ExternalCode for C code it cannot walk).
	walked := lang != LangPython && lang != LangRuby && lang != LangGo
	if walked && share(d.Shallow) >= ShallowShare {
		v.Reach, v.Why, v.Share, v.ShallowFrames, v.Lang, v.Fix = false, runfmt.ReachShallow, share(d.Shallow), ShallowFrames, lang, runfmt.FixUnwind
		m.binaryFacts(&v)
		return v
	}
	if share(d.NoUser) < NoUserShare {
		return v
	}
	v.Reach, v.Share, v.Lang = false, share(d.NoUser), lang
	switch {
	case !seesLang && (lang == LangPython || lang == LangRuby || lang == LangNode || lang == LangJVM):
		v.Why, v.Fix = runfmt.ReachRuntimeOnly, runfmt.FixNaming
	case share(d.Unnamed) >= ShallowShare:
		v.Why, v.UnnamedShare, v.Fix = runfmt.ReachUnnamed, share(d.Unnamed), runfmt.FixNaming
	default:
		v.Why, v.Fix = runfmt.ReachNotUserCode, runfmt.FixUserCode
	}
	return v
}
