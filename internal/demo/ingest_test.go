package demo

import (
	"fmt"
	"testing"
)

// FuzzParseLogLines checks that the fixed parser of POST /ingest bodies
// agrees with the planted one on any input.
func FuzzParseLogLines(f *testing.F) {
	f.Add([]byte("level=info status=200 dur_ms=1.5\nlevel=error status=503 dur_ms=20\n"))
	f.Add([]byte("broken\n\n  \nstatus=200 status=500 dur_ms=NaN level= =x"))
	f.Add(newLogBatch(3))
	f.Fuzz(func(t *testing.T, body []byte) {
		naive, recs := parseLogLinesNaive(string(body))
		lean, leanRecs := parseLogLinesLean(body)
		if len(recs) != len(leanRecs) {
			t.Fatalf("body %q: naive kept %d records, lean %d", body, len(recs), len(leanRecs))
		}
		// %v compares NaN totals as equal, unlike ==.
		if a, b := fmt.Sprintf("%+v", naive), fmt.Sprintf("%+v", lean); a != b {
			t.Fatalf("body %q:\nnaive %s\nlean  %s", body, a, b)
		}
	})
}
