package service

import (
	"math"
	"testing"
	"time"
)

// series builds samples every 250ms using cores and throttled share per
// interval.
func series(n int, cores, throttled float64) []Sample {
	t0 := time.Unix(1000, 0)
	var out []Sample
	var s Sample
	for i := range n {
		s.T = t0.Add(time.Duration(i) * 250 * time.Millisecond)
		if i > 0 {
			s.CPUSeconds += cores * 0.25
			s.Periods += 25
			s.ThrottledPeriods += int64(25 * throttled)
			s.ThrottledSeconds += 0.01
		}
		s.RSSBytes = int64(1000 + i)
		s.Threads = int64(5 + i%3)
		s.Source = "cgroup-v1"
		out = append(out, s)
	}
	return out
}

func TestWindowBound(t *testing.T) {
	ss := series(13, 0.98, 0.74)
	w := Window(ss, ss[0].T, ss[len(ss)-1].T, 1, 2)
	if math.Abs(w.CPUCoresMean-0.98) > 1e-9 || math.Abs(w.CPUSeconds-0.98*3) > 1e-9 {
		t.Errorf("mean %v cpu %v; want 0.98 and 2.94", w.CPUCoresMean, w.CPUSeconds)
	}
	if !w.CPUBound || w.ThrottledPct != 72 || w.RSSMaxBytes != 1012 || w.ThreadsMax != 7 || w.Source != "cgroup-v1" {
		t.Errorf("Window = %+v", w)
	}
	if w.CPUUnjudged || w.Samples != 13 || w.CPULimitCores != 1 || w.HostCores != 2 {
		t.Errorf("Window = %+v; want 13 samples judged, its budget and host cores kept for the verdict's words", w)
	}
}

func TestWindowNotBound(t *testing.T) {
	ss := series(9, 0.31, 0)
	w := Window(ss, ss[0].T, ss[len(ss)-1].T, 2, 2)
	if w.CPUBound || w.CPUUnjudged || w.ThrottledPct != 0 {
		t.Errorf("Window = %+v", w)
	}
	w = Window(series(9, 1.95, 0), time.Unix(0, 0), time.Unix(2000, 0), 0, 2)
	if !w.CPUBound || w.CPULimitCores != 0 || w.HostCores != 2 {
		t.Errorf("no limit: Window = %+v", w)
	}
}

func TestWindowSelectsAndP95(t *testing.T) {
	ss := series(41, 0.5, 0)
	// A burst in one interval: p95 below it, max at it.
	for i := 20; i < len(ss); i++ {
		ss[i].CPUSeconds += 0.5
	}
	w := Window(ss, ss[0].T, ss[40].T, 0, 2)
	if math.Abs(w.CPUCoresMax-2.5) > 1e-9 || math.Abs(w.CPUCoresP95-0.5) > 1e-9 {
		t.Errorf("max %v p95 %v; want 2.5 and 0.5", w.CPUCoresMax, w.CPUCoresP95)
	}
	w = Window(ss, ss[30].T, ss[40].T, 0, 2)
	if math.Abs(w.CPUSeconds-1.25) > 1e-9 {
		t.Errorf("window [30,40]: cpu %v; want 1.25", w.CPUSeconds)
	}
	w = Window(ss, ss[40].T.Add(time.Second), ss[40].T.Add(2*time.Second), 1, 2)
	if w.CPUBound || !w.CPUUnjudged || w.Samples != 0 {
		t.Errorf("empty window: %+v", w)
	}
}

func TestWindowInterpolatesItsEnds(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var samples []Sample
	for i := 0; i <= 4; i++ {
		samples = append(samples, Sample{T: t0.Add(time.Duration(i) * time.Second), CPUSeconds: 0.5 * float64(i)})
	}
	// [0.5s, 2.5s] holds samples at 1s and 2s only (0.5 CPU s between them),
	// but the service used 1 CPU second over the whole window.
	w := Window(samples, t0.Add(500*time.Millisecond), t0.Add(2500*time.Millisecond), 0, 2)
	if math.Abs(w.CPUSeconds-1.0) > 1e-9 || math.Abs(w.CPUCoresMean-0.5) > 1e-9 {
		t.Errorf("CPU seconds %v, mean cores %v; want 1.0 and 0.5", w.CPUSeconds, w.CPUCoresMean)
	}
	// A window past the last sample (the service exited) stops at it.
	w = Window(samples, t0.Add(3500*time.Millisecond), t0.Add(9*time.Second), 0, 2)
	if math.Abs(w.CPUSeconds-0.25) > 1e-9 {
		t.Errorf("CPU seconds past the end %v; want 0.25", w.CPUSeconds)
	}
}
