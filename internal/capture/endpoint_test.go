package capture

import (
	"testing"

	"perflab/internal/runfmt"
)

// TestEndpointOf: every profile type a pprof endpoint serves maps to it
// (the snapshots at the window's start to the same endpoint as at its
// end); the wall-time profiles perflab makes itself map to none.
func TestEndpointOf(t *testing.T) {
	want := map[runfmt.ProfileType]Endpoint{
		runfmt.ProfileCPU: EndpointProfile, runfmt.ProfileAllocs: EndpointAllocs,
		runfmt.ProfileHeap: EndpointHeap, runfmt.ProfileHeapStart: EndpointHeap,
		runfmt.ProfileGoroutine: EndpointGoroutine, runfmt.ProfileGoroutineStart: EndpointGoroutine,
		runfmt.ProfileMutex: EndpointMutex, runfmt.ProfileBlock: EndpointBlock, runfmt.ProfileTrace: EndpointTrace,
	}
	for _, typ := range runfmt.ProfileTypes.List() {
		e := EndpointOf(typ)
		if e != want[typ] {
			t.Errorf("EndpointOf(%s) = %q; want %q", typ, e, want[typ])
		}
		if _, checked := kindTypes[e]; e != "" && e != EndpointTrace && !checked {
			t.Errorf("a %s profile from %s is not checked for its kind", typ, e)
		}
	}
}
