package capture

import (
	"errors"
	"fmt"

	"github.com/google/pprof/profile"
)

// Delta returns what happened between two snapshots of a cumulative profile
// (allocs, heap, mutex, block): after minus before, sample by sample, with
// samples that net to zero dropped. For heap profiles alloc_objects and
// alloc_space become the allocations made in the window, and inuse_* the
// change in live memory, as net/http/pprof's ?seconds=N delta profiles do.
// The result keeps after's sample types and default type, is stamped at
// after's time and lasts from before to after.
func Delta(before, after *profile.Profile) (*profile.Profile, error) {
	if before == nil || after == nil {
		return nil, errors.New("computing profile delta: missing before or after profile")
	}
	neg := before.Copy()
	neg.Scale(-1)
	// profile.Merge adds the samples of identical stacks and drops samples
	// whose values are all zero; after comes first so its header is kept.
	d, err := profile.Merge([]*profile.Profile{after, neg})
	if err != nil {
		return nil, fmt.Errorf("computing profile delta: %w (both snapshots must be the same kind from the same program)", err)
	}
	d.TimeNanos = after.TimeNanos
	d.DurationNanos = max(after.TimeNanos-before.TimeNanos, 0)
	return d, nil
}
