package labtest

import (
	"testing"
	"time"
)

// Until checks cond until it holds or timeout passes, and says whether it
// held. It checks at once, then after pauses that double from 1 ms to
// 50 ms: an event that comes quickly is seen quickly, and a slow one costs
// twenty checks a second. A test waits for an event with Until or
// Eventually, never with a fixed sleep: the bound is what a busy machine
// may take, and the usual case takes what the event takes.
func Until(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	pause := time.Millisecond
	for {
		if cond() {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		time.Sleep(min(pause, left))
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// Eventually waits for cond like Until and fails the test, naming what it
// waited for, when cond does not hold within timeout. Call it from the
// test's goroutine (it calls t.Fatalf).
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Until(timeout, cond) {
		t.Fatalf("waited %s for %s", timeout, what)
	}
}
