package stacks

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"testing"
)

// TestReadStackSetTrustsNoDeclaredLength: a few bytes declaring a field
// of 1 GiB are a short file, not a reason to allocate 1 GiB before reading.
func TestReadStackSetTrustsNoDeclaredLength(t *testing.T) {
	data := binary.AppendUvarint([]byte{fProfileStringTable<<3 | 2}, 1<<30)
	data = append(data, "only a few bytes follow"...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Read(bytes.NewReader(data), false)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Errorf("readStackSet(%d bytes declaring a 1 GiB field): no error", len(data))
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("readStackSet(%d bytes declaring a 1 GiB field) allocated %d MiB; want what the input holds", len(data), got>>20)
	}
}
