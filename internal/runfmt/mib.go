package runfmt

import "encoding/json"

// The Go runtime's gctrace prints heap sizes in "MB" that are MiB (2^20
// bytes), and run.json kept them under keys ending in _mb. The fields now
// say what they hold (_mib) and run.json is written with the new keys; the
// old keys are still read (a run of an earlier perflab), each into its
// field when the new key is absent. The two records that hold such sizes
// read their elements' old keys too, so a GC event (up to MaxGCEvents of
// them) is decoded once, as any other field.

// legacyMiB copies an old *_mb key's value into its field when the file
// has it and not the new key.
func legacyMiB(field *float64, old *float64) {
	if old != nil && *field == 0 {
		*field = *old
	}
}

// gcEventKeys is a GCEvent with the keys of earlier files.
type gcEventKeys struct {
	GCEvent
	HeapStartMB *float64 `json:"heap_start_mb"`
	HeapEndMB   *float64 `json:"heap_end_mb"`
	HeapLiveMB  *float64 `json:"heap_live_mb"`
}

// event is the GCEvent with the old keys' values where the new are absent.
func (e gcEventKeys) event() GCEvent {
	legacyMiB(&e.HeapStartMiB, e.HeapStartMB)
	legacyMiB(&e.HeapEndMiB, e.HeapEndMB)
	legacyMiB(&e.HeapLiveMiB, e.HeapLiveMB)
	return e.GCEvent
}

// fromLegacy is the elements read with their earlier keys as they are now,
// nil when the file has none.
func fromLegacy[K, T any](in []K, now func(K) T) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	for i, k := range in {
		out[i] = now(k)
	}
	return out
}

// UnmarshalJSON reads a GCSummary, with heap_max_mb, alloc_mb_per_s and
// the events' heap_*_mb of earlier files.
func (g *GCSummary) UnmarshalJSON(b []byte) error {
	type plain GCSummary
	var v struct {
		plain
		HeapMaxMB   *float64      `json:"heap_max_mb"`
		AllocMBPerS *float64      `json:"alloc_mb_per_s"`
		Events      []gcEventKeys `json:"events,omitempty"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*g = GCSummary(v.plain)
	legacyMiB(&g.HeapMaxMiB, v.HeapMaxMB)
	legacyMiB(&g.AllocMiBPerS, v.AllocMBPerS)
	g.Events = fromLegacy(v.Events, gcEventKeys.event)
	return nil
}

// heapSiteKeys is a HeapSite with the key of earlier files.
type heapSiteKeys struct {
	HeapSite
	MBPerS *float64 `json:"mb_per_s"`
}

// site is the HeapSite with the old key's value where the new is absent.
func (s heapSiteKeys) site() HeapSite {
	legacyMiB(&s.MiBPerS, s.MBPerS)
	return s.HeapSite
}

// UnmarshalJSON reads a HeapGrowth, with the *_mb keys of earlier files.
func (h *HeapGrowth) UnmarshalJSON(b []byte) error {
	type plain HeapGrowth
	var v struct {
		plain
		LiveStartMB  *float64       `json:"live_start_mb"`
		LiveEndMB    *float64       `json:"live_end_mb"`
		SlopeMBPerS  *float64       `json:"slope_mb_per_s"`
		InuseStartMB *float64       `json:"inuse_start_mb"`
		InuseEndMB   *float64       `json:"inuse_end_mb"`
		Sites        []heapSiteKeys `json:"sites,omitempty"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*h = HeapGrowth(v.plain)
	legacyMiB(&h.LiveStartMiB, v.LiveStartMB)
	legacyMiB(&h.LiveEndMiB, v.LiveEndMB)
	legacyMiB(&h.SlopeMiBPerS, v.SlopeMBPerS)
	legacyMiB(&h.InuseStartMiB, v.InuseStartMB)
	legacyMiB(&h.InuseEndMiB, v.InuseEndMB)
	h.Sites = fromLegacy(v.Sites, heapSiteKeys.site)
	return nil
}
