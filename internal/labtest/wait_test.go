package labtest

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestUntilSeesTheEvent(t *testing.T) {
	var n atomic.Int32
	start := time.Now()
	if !Until(10*time.Second, func() bool { return n.Add(1) == 5 }) {
		t.Fatal("Until = false; want true once cond holds")
	}
	// Four pauses of 1, 2, 4 and 8 ms: far below the bound.
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Until took %v for a condition true at the fifth check", d)
	}
}

func TestUntilGivesUpAtTheBound(t *testing.T) {
	start := time.Now()
	if Until(100*time.Millisecond, func() bool { return false }) {
		t.Fatal("Until = true for a condition that never holds")
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("Until gave up after %v; want at least the 100 ms bound", d)
	}
}

func TestEventuallyNamesWhatItWaitedFor(t *testing.T) {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Eventually(r, 10*time.Millisecond, "the moon", func() bool { return false })
	}()
	<-done
	if !r.failed || r.fatal != "waited 10ms for the moon" {
		t.Errorf("failed %v, fatal %q; want the failure naming the moon", r.failed, r.fatal)
	}
}
