package labtest

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Clean says and stops like a
// test: Fatalf and FailNow end the goroutine.
type recorder struct {
	testing.TB
	failed bool
	logs   []string
	fatal  string
}

func (r *recorder) Helper()      {}
func (r *recorder) Failed() bool { return r.failed }
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *recorder) FailNow() {
	r.failed = true
	runtime.Goexit()
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	r.FailNow()
}

// clean runs Clean on a recorder, as a test's goroutine, and returns it
// with the attempts measure saw.
func clean(measure func(r *recorder, attempt int) string) (*recorder, []int) {
	r := &recorder{}
	var attempts []int
	done := make(chan struct{})
	go func() {
		defer close(done)
		Clean(r, func(attempt int) string {
			attempts = append(attempts, attempt)
			return measure(r, attempt)
		})
	}()
	<-done
	return r, attempts
}

func TestCleanMeasuresAgainUntilClean(t *testing.T) {
	r, attempts := clean(func(_ *recorder, attempt int) string {
		if attempt < 2 {
			return "noisy"
		}
		return ""
	})
	if r.failed || len(attempts) != 2 || len(r.logs) != 1 || !strings.Contains(r.logs[0], "attempt 1 of 3 disturbed, measuring again: noisy") {
		t.Errorf("failed %v after attempts %v, logs %q; want a pass on the second attempt, the first's reason logged", r.failed, attempts, r.logs)
	}
}

func TestCleanFailsWithoutACleanRun(t *testing.T) {
	r, attempts := clean(func(_ *recorder, attempt int) string { return fmt.Sprintf("spun %d", attempt) })
	if !r.failed || len(attempts) != CleanAttempts || !strings.Contains(r.fatal, "no clean run in 3 attempts") ||
		!strings.Contains(r.fatal, "spun 1\n  spun 2\n  spun 3") {
		t.Errorf("failed %v after attempts %v: %q; want a failure naming every attempt's reason", r.failed, attempts, r.fatal)
	}
}

// TestCleanStopsOnAFailedCheck: what measure checks of a disturbed run
// (that perflab said so) fails the test at once.
func TestCleanStopsOnAFailedCheck(t *testing.T) {
	r, attempts := clean(func(r *recorder, _ int) string {
		r.Errorf("the run did not say it was uncertain")
		return "over-counted"
	})
	if !r.failed || len(attempts) != 1 || r.fatal != "" {
		t.Errorf("failed %v after attempts %v, fatal %q; want the test stopped after the first attempt", r.failed, attempts, r.fatal)
	}
}
