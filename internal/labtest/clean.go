package labtest

import (
	"strings"
	"testing"
)

// CleanAttempts is how many times a test measures before it gives up on
// a clean run.
const CleanAttempts = 3

// Clean measures until a run is clean, at most CleanAttempts times:
// measure runs one attempt and returns why its run was disturbed (what
// perflab itself said of it: a noisy machine, a profile that stood for
// more CPU than was measured, the runtime spinning for threads without a
// CPU), or "" for a clean run, which the test then holds to its
// assertions. What perflab must say of a disturbed run, measure checks
// itself; when one of its checks fails, the test stops there (another
// attempt would not undo it). When no attempt is clean the test fails
// with every attempt's reason: an acceptance test never passes without
// its main assertion.
func Clean(t testing.TB, measure func(attempt int) (disturbed string)) {
	t.Helper()
	var reasons []string
	for attempt := 1; attempt <= CleanAttempts; attempt++ {
		failed := t.Failed()
		why := measure(attempt)
		if !failed && t.Failed() {
			t.FailNow()
		}
		if why == "" {
			return
		}
		t.Logf("attempt %d of %d disturbed, measuring again: %s", attempt, CleanAttempts, why)
		reasons = append(reasons, why)
	}
	t.Fatalf("no clean run in %d attempts, so the main assertion cannot be checked:\n  %s", CleanAttempts, strings.Join(reasons, "\n  "))
}
