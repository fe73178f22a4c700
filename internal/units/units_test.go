package units

import (
	"math"
	"testing"
	"time"
)

func TestFormats(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{FormatMicros(985), "985.0 µs"},
		{FormatMicros(12_400), "12.40 ms"},
		{FormatMicros(1_200_000), "1.20 s"},
		{FormatMicros(-1500), "-1.50 ms"},
		{FormatMs(0.25), "250.0 µs"},
		{FormatDuration(1500 * time.Millisecond), "1.50 s"},
		{FormatDuration(350 * time.Microsecond), "350.0 µs"},
		{FormatBytes(1536), "1.5 KiB"},
		{FormatBytes(3 << 30), "3.00 GiB"},
		{FormatValue(1.2e9, "nanoseconds"), "1.2s"},
		{FormatValue(350e6, "ns"), "350ms"},
		{FormatValue(2500, "count"), "2.5k"},
		{Sig(0.012345), "0.0123"},
		{Sig(123.4), "123"},
		{FormatSeconds(2.314), "2.31 s"},
		{FormatSeconds(0.05), "0.05 s"},
		{FormatSeconds(0.004), "4.00 ms"},
		{FormatPct(41.4), "41%"},
		{FormatPct(4.54), "4.5%"},
		{FormatPct(0.351), "0.35%"},
		{FormatPct(1.7e-14), "0%"},
		{FormatPct(-1e-9), "0%"},
		{FormatPct(-12.4), "-12%"},
		{FormatShare(0.125), "12%"},
		{FormatCores(0.9812), "0.981 cores"},
		{FormatCores(2), "2 cores"},
		{FormatCores(1), "1 core"},
		{Shorten("GET /api/items", 8), "GET /ap…"},
		{Shorten("héllo", 5), "héllo"},
	} {
		if c.got != c.want {
			t.Errorf("got %q; want %q", c.got, c.want)
		}
	}
}

// NaN and ±Inf read "n/a" in every format, never "NaN" or "+Inf s".
func TestNonFiniteReadsNA(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for name, got := range map[string]string{
			"FormatMicros": FormatMicros(v), "FormatMs": FormatMs(v), "FormatSeconds": FormatSeconds(v),
			"FormatPct": FormatPct(v), "FormatShare": FormatShare(v), "FormatCores": FormatCores(v),
			"FormatBytes": FormatBytes(v), "FormatValue": FormatValue(v, "ns"), "Sig": Sig(v),
		} {
			if got != NotANumber {
				t.Errorf("%s(%v) = %q; want %q", name, v, got, NotANumber)
			}
		}
	}
}
