package ownership

// At is a frame's place in a stack: Location indexes the stack's frames
// leaf first (pprof's Sample.Location; a []Frame's index), Line the
// inlined frames of that location, innermost first (Location.Line; 0 for
// a []Frame). Location is -1 for no frame.
type At struct {
	Location int
	Line     int
}

// none is the At of no frame.
var none = At{Location: -1}

// Charge says who a sample's cost is charged to: the user's code that
// owns it, and the library it went through.
type Charge struct {
	// Owner is the frame of user code nearest the leaf (the leaf itself
	// when it is user code): the sample's cost is the owner's. Location
	// is -1 when no frame is the user's.
	Owner At
	// Library is the frame that names the code below the owner holding
	// the cost, so that it can be said as "library X under your Y": the
	// dependency frame nearest the owner (the outermost between the leaf
	// and the owner), else the standard library's, else the runtime's.
	// A dependency called through the standard library is still named
	// (fmt.Println of a protobuf message charges protobuf). Location is
	// -1 when the leaf is the owner. Without an owner, it is the
	// outermost dependency or standard-library frame of the stack, never
	// the runtime's (a thread's entry names nothing; Work names the
	// runtime's own work).
	Library At
	// LibraryClass is the class of the Library frame.
	LibraryClass Class
	// Database says a frame between the leaf and the owner (or over the
	// whole stack, without an owner) is database client work.
	Database bool
}

// Charge tells who the cost of stack (leaf first, as pprof's
// Sample.Location) is charged to, classifying each frame with m.
func (m *Model) Charge(stack []Frame) Charge {
	var ch charger
	ch.start()
	for i, f := range stack {
		c := m.Classify(f)
		if ch.add(&c, At{Location: i}) {
			break
		}
	}
	return ch.result()
}

// Index is the type of a stack's entries for ChargeStack:
// indexes into a table of classes.
type Index interface {
	~int | ~int32 | ~uint32 | ~int64 | ~uint64
}

// ChargeStack tells who the cost of a stack is charged to, for callers
// that keep stacks compactly: stack holds, leaf first, indexes into
// classes (one Class per distinct function, classified once). At values
// index stack (Line is 0).
func ChargeStack[I Index](stack []I, classes []Class) Charge {
	var g charger
	g.start()
	for i, f := range stack {
		if g.add(&classes[f], At{Location: i}) {
			break
		}
	}
	return g.result()
}

// charger accumulates a Charge frame by frame, leaf first.
type charger struct {
	ch          Charge
	dep, std, r At
	// The classes of dep, std and r, by reference: a stack's walk copies
	// one Class at its end, not one per frame.
	depC, stdC, rC *Class
}

func (g *charger) start() {
	g.ch = Charge{Owner: none, Library: none}
	g.dep, g.std, g.r = none, none, none
}

// add takes the next frame toward the root and reports whether the owner
// was found (the walk can stop).
func (g *charger) add(c *Class, at At) bool {
	switch c.Kind {
	case User:
		g.ch.Owner = at
		return true
	case Dependency:
		g.dep, g.depC = at, c
	case Std:
		g.std, g.stdC = at, c
	case Runtime:
		g.r, g.rC = at, c
	}
	if c.Role == Database {
		g.ch.Database = true
	}
	return false
}

func (g *charger) result() Charge {
	switch {
	case g.dep.Location >= 0:
		g.ch.Library, g.ch.LibraryClass = g.dep, *g.depC
	case g.std.Location >= 0:
		g.ch.Library, g.ch.LibraryClass = g.std, *g.stdC
	case g.r.Location >= 0 && g.ch.Owner.Location >= 0:
		g.ch.Library, g.ch.LibraryClass = g.r, *g.rC
	}
	return g.ch
}
