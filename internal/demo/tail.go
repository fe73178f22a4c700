package demo

import "sync"

// tailSize is how many ingested records the service keeps.
const tailSize = 20000

// tailBuffer keeps the most recently ingested records, as a log service
// does for its live tail. The planted build keeps whole records (maps and
// strings: a pointer-dense live heap the GC marks on every cycle); the
// fixed build keeps compact values.
type tailBuffer struct {
	mu   sync.Mutex
	recs []*logRecord
	lean []leanRecord
	next int
}

// leanRecord is the fixed build's record: no pointers but an interned level.
type leanRecord struct {
	level  string
	status int
	durMs  float64
}

func newTailBuffer(n int) *tailBuffer {
	return &tailBuffer{recs: make([]*logRecord, n), lean: make([]leanRecord, n)}
}

func (t *tailBuffer) add(recs []*logRecord) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range recs {
		t.recs[t.next] = r
		t.next = (t.next + 1) % len(t.recs)
	}
}

func (t *tailBuffer) addLean(recs []leanRecord) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range recs {
		t.lean[t.next] = r
		t.next = (t.next + 1) % len(t.lean)
	}
}

// internLevel returns a constant for known levels, so a kept record does
// not pin the request body it was sliced from.
func internLevel(v string) string {
	for _, l := range []string{"debug", "info", "warn", "error"} {
		if v == l {
			return l
		}
	}
	return "other"
}
