package report

import (
	"bytes"
	"flag"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden is labtest.Golden under this package's -update.
func golden(t *testing.T, ext string, got []byte) {
	t.Helper()
	labtest.Golden(t, ext, got, *update)
}

func sampleLoad(t *testing.T, open bool) *runfmt.LoadResult {
	h := hdr.New(1, 3_600_000_000, 3)
	for i := int64(1); i <= 1000; i++ {
		h.RecordValue(500 + i*10) // 0.51 ms .. 10.5 ms
	}
	enc, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	r := &runfmt.LoadResult{
		Model: "closed", Requests: 1003, Errors: 3, DurationS: 2.5, RPS: 401.2, BytesIn: 13000, BytesOut: 80000,
		Latency:      runfmt.Latency{Min: 0.51, Mean: 5.5, P10: 1.51, P25: 3.01, P50: 5.51, P75: 8.01, P90: 9.51, P95: 10.01, P99: 10.41, P999: 10.5, Max: 10.5},
		Status:       map[string]int64{"200": 990, "404": 10},
		ErrorKinds:   map[string]int64{"timeout": 2, "refused": 1},
		ErrorSamples: map[string]string{"timeout": "read tcp 127.0.0.1:1->127.0.0.1:2: i/o timeout", "refused": "dial tcp 127.0.0.1:9: connect: connection refused"},
		Phases: map[string]runfmt.Latency{
			"connect": {Min: 0.1, Mean: 0.2, Max: 0.4, P99: 0.4},
			"ttfb":    {Min: 0.4, Mean: 5.2, Max: 10.2, P99: 10.1},
			"body":    {Min: 0.01, Mean: 0.02, Max: 0.1, P99: 0.09},
		},
		Histogram: string(enc),
	}
	if open {
		r.Model, r.TargetRPS = "open", 400
		r.Open = &runfmt.OpenStats{Scheduled: 1003, Late: 4, Dropped: 0, MaxInflightHits: 12, MaxInflight: 1000, Workers: 9,
			SendLagMS: runfmt.Latency{P50: 0.03, P99: 0.08, Max: 1.2}}
	}
	return r
}

func TestLoadTextGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		open bool
	}{{"closed", false}, {"open", true}} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteLoadText(&b, sampleLoad(t, tc.open)); err != nil {
				t.Fatal(err)
			}
			golden(t, ".txt", b.Bytes())
		})
	}
}

func TestLoadTextNoResponses(t *testing.T) {
	var b bytes.Buffer
	r := &runfmt.LoadResult{Requests: 5, Errors: 5, ErrorKinds: map[string]int64{"refused": 5}, ErrorSamples: map[string]string{"refused": "connection refused"}}
	if err := WriteLoadText(&b, r); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte("[5]\trefused: connection refused")) || bytes.Contains(b.Bytes(), []byte("Latency distribution")) {
		t.Errorf("all-errors summary:\n%s", b.String())
	}
}
