//go:build 386 || amd64

package ktrace

import (
	"encoding/binary"
	"testing"
)

// The Go mirrors of the kernel maps' keys and values have their sizes.
func TestLayouts(t *testing.T) {
	spec, err := loadSpec()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m          string
		key, value any
	}{
		{"procslots", uint32(0), uint32(0)},
		{"procs", uint32(0), kProc{}},
		{"offslots", kOffKey{}, uint32(0)},
		{"offcpu", uint32(0), kWaitStat{}},
		{"flowslots", kFlowKey{}, uint32(0)},
		{"flows", uint32(0), kFlow{}},
		{"drops", uint32(0), uint64(0)},
		{"targets", uint32(0), uint64(0)},
		{"ports", uint32(0), uint64(0)},
	} {
		ms := spec.Maps[c.m]
		if ms == nil {
			t.Errorf("no map %s", c.m)
			continue
		}
		if k, v := binary.Size(c.key), binary.Size(c.value); uint32(k) != ms.KeySize || uint32(v) != ms.ValueSize {
			t.Errorf("map %s: Go key %d value %d bytes, kernel %d and %d", c.m, k, v, ms.KeySize, ms.ValueSize)
		}
	}
	if n := spec.Maps["drops"].MaxEntries; n != nDrops {
		t.Errorf("drops has %d counters, Go reads %d", n, nDrops)
	}
	if n := spec.Maps["stacks"].ValueSize; n != 127*8 {
		t.Errorf("stack table's value is %d bytes, Session.Stack reads 127 frames", n)
	}
	all := append(append([]program{}, programs...), iterators...)
	for _, p := range all {
		if spec.Programs[p.name] == nil {
			t.Errorf("no kernel program %s", p.name)
		}
	}
	if len(spec.Programs) != len(all) {
		t.Errorf("%d kernel programs, %d loaded", len(spec.Programs), len(all))
	}
}
