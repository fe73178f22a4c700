// Package units is the one way perflab prints quantities: times per
// request, byte sizes, pprof-style scaled values, numbers to three
// significant digits and labels cut to a width. Every text, table and page
// derives its figures from these, so one quantity reads the same in the
// terminal, report.html, the UI and a pull-request comment.
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// FormatValue renders v in unit with a scaled suffix, as pprof does:
// nanoseconds as "1.20s", "350ms", "12µs"; bytes as FormatBytes does;
// counts plain with k/M/G.
func FormatValue(v float64, unit string) string {
	if !finite(v) {
		return NotANumber
	}
	switch strings.ToLower(unit) {
	case "nanoseconds", "ns":
		return scaleTime(v)
	case "microseconds", "us":
		return scaleTime(v * 1e3)
	case "milliseconds", "ms":
		return scaleTime(v * 1e6)
	case "seconds", "s":
		return scaleTime(v * 1e9)
	case "bytes", "b":
		return FormatBytes(v)
	}
	return scale(v, 1000, []string{"", "k", "M", "G", "T"})
}

func scaleTime(ns float64) string {
	a := math.Abs(ns)
	switch {
	case a == 0:
		return "0"
	case a >= 1e9:
		return trimNum(ns/1e9) + "s"
	case a >= 1e6:
		return trimNum(ns/1e6) + "ms"
	case a >= 1e3:
		return trimNum(ns/1e3) + "µs"
	}
	return trimNum(ns) + "ns"
}

func scale(v, base float64, suffixes []string) string {
	if v == 0 {
		return "0"
	}
	i := 0
	for math.Abs(v) >= base && i < len(suffixes)-1 {
		v /= base
		i++
	}
	return trimNum(v) + suffixes[i]
}

// trimNum prints up to 3 significant decimals without trailing zeros.
func trimNum(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	if math.Abs(v) >= 100 {
		s = fmt.Sprintf("%.1f", v)
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// FormatBytes formats a byte count in binary units (B, KiB, MiB, GiB): the
// one way perflab prints sizes. (The runtime's gctrace and pprof write
// "MB" for the same 2^20 bytes.)
func FormatBytes(b float64) string {
	if !finite(b) {
		return NotANumber
	}
	a := math.Abs(b)
	switch {
	case a >= 1<<30:
		return fmt.Sprintf("%.2f GiB", b/(1<<30))
	case a >= 1<<20:
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	case a >= 1<<10:
		return fmt.Sprintf("%.1f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}

// FormatMicros formats a duration given in microseconds: the one way
// perflab prints a time per request ("985.0 µs", "12.40 ms", "1.20 s").
func FormatMicros(us float64) string {
	if !finite(us) {
		return NotANumber
	}
	switch a := math.Abs(us); {
	case a >= 1e6:
		return fmt.Sprintf("%.2f s", us/1e6)
	case a >= 1000:
		return fmt.Sprintf("%.2f ms", us/1000)
	}
	return fmt.Sprintf("%.1f µs", us)
}

// FormatMs formats a duration given in milliseconds as FormatMicros does.
func FormatMs(ms float64) string { return FormatMicros(1000 * ms) }

// FormatSeconds formats a duration given in seconds, over a window rather
// than per request: "2.31 s", "0.05 s"; under 10 ms as FormatMicros does.
func FormatSeconds(s float64) string {
	if !finite(s) {
		return NotANumber
	}
	if math.Abs(s) < 0.01 && s != 0 {
		return FormatMicros(s * 1e6)
	}
	return fmt.Sprintf("%.2f s", s)
}

// FormatPct formats a percentage: whole from 10% up ("41%"), one decimal
// from 1% ("4.5%"), two significant digits below ("0.35%"), and "0%"
// under 0.005% (a sum's rounding noise).
func FormatPct(pct float64) string {
	if !finite(pct) {
		return NotANumber
	}
	switch a := math.Abs(pct); {
	case a < 0.005:
		return "0%"
	case a >= 10:
		return fmt.Sprintf("%.0f%%", pct)
	case a >= 1:
		return fmt.Sprintf("%.1f%%", pct)
	}
	return strconv.FormatFloat(pct, 'g', 2, 64) + "%"
}

// FormatCores formats CPU cores (CPU seconds per second) to 3 significant
// digits: "0.98 cores", "1 core", "2 cores".
func FormatCores(c float64) string {
	if !finite(c) {
		return NotANumber
	}
	if s := Sig(c); s != "1" {
		return s + " cores"
	}
	return "1 core"
}

// FormatShare formats a fraction (0 to 1) as FormatPct does.
func FormatShare(f float64) string { return FormatPct(100 * f) }

// FormatDuration formats d as FormatMicros does ("350.0 µs", "1.20 s").
func FormatDuration(d time.Duration) string {
	return FormatMicros(float64(d) / float64(time.Microsecond))
}

// Sig formats v to 3 significant digits, whole from 100 up: chart ticks,
// sparkline values, table cells without a unit of their own.
func Sig(v float64) string {
	if !finite(v) {
		return NotANumber
	}
	if math.Abs(v) >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// NotANumber is what every format prints for NaN and ±Inf (a ratio of
// nothing, a figure no record should hold): no page shows "NaN" or
// "+Inf s".
const NotANumber = "n/a"

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Shorten cuts s to n runes, the last one an ellipsis when cut.
func Shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
