package capture

import (
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// SampleTime is when perf took one sample: the profile's sample it was
// added to (samples of one stack and labels are added up into one), and
// the time on CLOCK_MONOTONIC (perf record -k monotonic), so that it can
// be set beside clock_gettime(CLOCK_MONOTONIC) readings of the same run.
type SampleTime struct {
	Sample *profile.Sample
	Mono   time.Duration
}

// parsePerfTime reads perf script's time field, "SECONDS.FRACTION:"
// (microseconds, or nanoseconds with --ns); false when tok is not one.
func parsePerfTime(tok string) (time.Duration, bool) {
	secs, frac, ok := strings.Cut(strings.TrimSuffix(tok, ":"), ".")
	if !ok || !digits(secs) || !digits(frac) || len(frac) > 9 {
		return 0, false
	}
	s, err := strconv.ParseInt(secs, 10, 64)
	if err != nil || s > int64(time.Duration(1<<62)/time.Second) {
		return 0, false
	}
	f, _ := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
	return time.Duration(s)*time.Second + time.Duration(f), true
}

// digits says s is one or more decimal digits.
func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
