package ownership

import (
	"github.com/google/pprof/profile"
)

// Classified is a profile whose every location has been classified once,
// so that each sample is charged without classifying again: a sample's
// charge and runtime work read one small summary per location. It is
// safe for concurrent use; it reads the profile, which must not change.
type Classified struct {
	m *Model
	// byID holds each location's summary by Location.ID when IDs are
	// dense; byLoc otherwise.
	byID  []locInfo
	byLoc map[*profile.Location]*locInfo
}

// locInfo is a location's classes (one per line, innermost first) and
// what charging and runtime work need of them.
type locInfo struct {
	classes []Class
	// user is the first line of user code (-1: none); dep, std and rt the
	// last line of a dependency, the standard library and the runtime
	// before it (or in the whole location, without one), -1 if none; db
	// says a line before it is database work.
	user, dep, std, rt int
	db                 bool
	// vm says every line is on the runtime's side (see vmSide); interp
	// that an interpreter frame lies in the run of such lines at the
	// location's start; jit, gc and script that a line is marked so;
	// measuring that a line is measuring's.
	vm, interp, jit, gc, script, measuring bool
}

// summarize computes a location's summary from its classes.
func summarize(classes []Class) *locInfo {
	li := &locInfo{classes: classes, user: -1, dep: -1, std: -1, rt: -1, vm: true}
	for i := range classes {
		c := &classes[i]
		if li.user < 0 {
			switch c.Kind {
			case User:
				li.user = i
			case Dependency:
				li.dep = i
			case Std:
				li.std = i
			case Runtime:
				li.rt = i
			}
			li.db = li.db || c.Kind != User && c.Role == Database
		}
		li.jit = li.jit || c.mark&markJIT != 0
		li.gc = li.gc || c.mark&markGC != 0
		li.script = li.script || c.mark&markScript != 0
		li.measuring = li.measuring || c.mark&markMeasuring != 0
		if li.vm {
			li.interp = li.interp || c.mark&markInterp != 0
			li.vm = vmSide(c)
		}
	}
	return li
}

// funcKey identifies a frame's classification: its function in its
// binary.
type funcKey struct {
	fn *profile.Function
	mp *profile.Mapping
}

// ClassifyProfile classifies every location of p. Each distinct function
// (in each binary) is classified once.
func (m *Model) ClassifyProfile(p *profile.Profile) *Classified {
	c := &Classified{m: m}
	var maxID uint64
	for _, loc := range p.Location {
		maxID = max(maxID, loc.ID)
	}
	dense := maxID <= 4*uint64(len(p.Location))+64
	if dense {
		c.byID = make([]locInfo, maxID+1)
	} else {
		c.byLoc = make(map[*profile.Location]*locInfo, len(p.Location))
	}
	seen := map[funcKey]Class{}
	for _, loc := range p.Location {
		li := summarize(m.locationClasses(loc, seen))
		if dense {
			c.byID[loc.ID] = *li
		} else {
			c.byLoc[loc] = li
		}
	}
	return c
}

// locationClasses classifies a location's lines; a location without
// lines (an address no one named) gets one class, from its binary.
func (m *Model) locationClasses(loc *profile.Location, seen map[funcKey]Class) []Class {
	bin := ""
	if loc.Mapping != nil {
		bin = loc.Mapping.File
	}
	if len(loc.Line) == 0 {
		return []Class{m.Classify(Frame{Binary: bin})}
	}
	out := make([]Class, len(loc.Line))
	for i, ln := range loc.Line {
		k := funcKey{ln.Function, loc.Mapping}
		cl, ok := seen[k]
		if !ok {
			f := Frame{Binary: bin}
			if ln.Function != nil {
				f.Func, f.File = ln.Function.Name, ln.Function.Filename
			}
			cl = m.Classify(f)
			seen[k] = cl
		}
		out[i] = cl
	}
	return out
}

// info returns loc's summary.
func (c *Classified) info(loc *profile.Location) *locInfo {
	if c.byID != nil {
		if loc.ID < uint64(len(c.byID)) && c.byID[loc.ID].classes != nil {
			return &c.byID[loc.ID]
		}
	} else if li, ok := c.byLoc[loc]; ok {
		return li
	}
	return summarize(c.m.locationClasses(loc, map[funcKey]Class{})) // a location added since
}

// Location returns loc's classes, one per line (inlined frames,
// innermost first), or one for a location without lines.
func (c *Classified) Location(loc *profile.Location) []Class {
	return c.info(loc).classes
}

// Charge tells who the sample's cost is charged to (see Charge); its
// At values index s.Location and each location's Line.
func (c *Classified) Charge(s *profile.Sample) Charge {
	var g charger
	g.start()
	for i, loc := range s.Location {
		li := c.info(loc)
		if li.dep >= 0 {
			g.dep, g.depC = At{i, li.dep}, &li.classes[li.dep]
		}
		if li.std >= 0 {
			g.std, g.stdC = At{i, li.std}, &li.classes[li.std]
		}
		if li.rt >= 0 {
			g.r, g.rC = At{i, li.rt}, &li.classes[li.rt]
		}
		g.ch.Database = g.ch.Database || li.db
		if li.user >= 0 {
			g.ch.Owner = At{i, li.user}
			break
		}
	}
	return g.result()
}

// Work tells which runtime work the sample is (see Model.Work), reading
// its thread from perf's "comm" label. A sample labelled jvm_leaf
// "interpreted" (async-profiler's: the Java method at its leaf is
// interpreted) is Interpreter, as perf's "Interpreter" frame is.
func (c *Classified) Work(s *profile.Sample) Work {
	if t := s.Label["comm"]; len(t) > 0 {
		if w, ok := threadWork(t[0]); ok {
			return w
		}
	}
	if l := s.Label["jvm_leaf"]; len(l) > 0 && l[0] == "interpreted" {
		return Interpreter
	}
	if len(s.Location) == 0 {
		return NoWork
	}
	var w workScan
	leaf := c.info(s.Location[0])
	w.add(&leaf.classes[0], true)
	if !w.needsAll() {
		return NoWork
	}
	w.inLeaf = true
	for _, loc := range s.Location {
		li := c.info(loc)
		w.jit = w.jit || li.jit
		w.gc = w.gc || li.gc
		w.script = w.script || li.script
		if w.inLeaf {
			w.interp = w.interp || li.interp
			w.inLeaf = li.vm
		}
	}
	return w.result()
}

// HasUser reports whether a frame of the sample is user code.
func (c *Classified) HasUser(s *profile.Sample) bool {
	for _, loc := range s.Location {
		if c.info(loc).user >= 0 {
			return true
		}
	}
	return false
}
