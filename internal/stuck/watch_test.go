package stuck

import (
	"testing"
	"time"

	"perflab/internal/service"
)

// TestStallClockCountsWhatItSaw: no request finishing is a stall while the
// watcher looks on time; a look that comes late (the watcher, and the
// load's workers, held off the CPU by a busy machine) restarts the count,
// so a second and a half of the watcher's own starvation is not taken for
// a stuck service.
func TestStallClockCountsWhatItSaw(t *testing.T) {
	t0 := time.Now()
	c := stallClock{last: -1, since: t0}
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	c.observe(at(100), 10)
	for ms := 200; ms <= 1700; ms += 100 {
		c.observe(at(ms), 10)
	}
	if got := c.observe(at(1800), 10); got != 1700*time.Millisecond {
		t.Errorf("looking on time, stalled %v; want 1.7s", got)
	}
	if got := c.observe(at(1900), 11); got != 0 {
		t.Errorf("a request finished: stalled %v; want 0", got)
	}
	if got := c.observe(at(3400), 11); got != 0 {
		t.Errorf("a look 1.5 s late: stalled %v; want 0 (not seen)", got)
	}
	if got := c.observe(at(3500), 11); got != 100*time.Millisecond {
		t.Errorf("the next look on time: stalled %v; want 100ms", got)
	}
}

// TestStarvedIsNotStuck: a stall during which the service's threads
// waited for a CPU for half of it or more (summed over threads) is the
// machine's, not a hang; one where they slept is not.
func TestStarvedIsNotStuck(t *testing.T) {
	t0 := time.Now()
	samples := func(waitPerTick float64) []service.Sample {
		var out []service.Sample
		for i := range 11 {
			out = append(out, service.Sample{T: t0.Add(time.Duration(i) * 200 * time.Millisecond), RunqueueWaitSeconds: float64(i) * waitPerTick})
		}
		return out
	}
	if wait, ok := starvedIn(samples(0.15), t0, t0.Add(2*time.Second)); !ok || wait != 1500*time.Millisecond {
		t.Errorf("threads waiting 75%% of the stall for a CPU: starved %v, waited %v; want starved, 1.5s", ok, wait)
	}
	if wait, ok := starvedIn(samples(0.02), t0, t0.Add(2*time.Second)); ok {
		t.Errorf("threads waiting 10%% of the stall for a CPU: starved (waited %v); want not", wait)
	}
	// The last sample is 400 ms before the stall is judged: the part
	// covered is judged.
	if _, ok := starvedIn(samples(0.15)[:9], t0, t0.Add(2*time.Second)); !ok {
		t.Error("samples covering 1.6 s of a 2 s stall, waiting 75% of it: want starved")
	}
	if _, ok := starvedIn(samples(0.15)[:1], t0, t0.Add(2*time.Second)); ok {
		t.Error("one sample: want not starved (nothing to judge)")
	}
}
