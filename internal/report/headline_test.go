package report

import (
	"bytes"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

func headlineRun() *runfmt.Run {
	return &runfmt.Run{
		SchemaVersion: runfmt.SchemaVersion, Name: "svc", ID: "20260101-120000-svc", Status: runfmt.StatusDegraded,
		Degradations: []runfmt.Degradation{{Profile: runfmt.ProfileCPU, Why: runfmt.DegradeFailed, Note: "cpu profiling already in use"}},
		Quality: &runfmt.Quality{Verdict: runfmt.QualityNoisy, Causes: []runfmt.NoiseCause{runfmt.NoiseOtherProcesses},
			Trusted: []runfmt.RunFigure{runfmt.RunCPUPerRequest}, Distorted: []runfmt.RunFigure{runfmt.RunLatency, runfmt.RunThroughput},
			HostCores: 2, OtherCores: 1.6, TopOther: []runfmt.ProcessCPU{{PID: 4242, Name: "stress", Cores: 0.98}}},
		Load: &runfmt.LoadResult{Requests: 1000, Errors: 30, ErrorKinds: map[string]int64{"refused": 25, "timeout": 5},
			SLO: []runfmt.SLOCheck{
				{Objective: "p99<100ms", Metric: "p99", Limit: 100, Measured: 127.3, Unit: "ms"},
				{Objective: "errors<1%", Metric: "errors", Limit: 1, Measured: 3, Unit: "%"},
			}},
	}
}

func TestHeadlineText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHeadline(&b, headlineRun()); err != nil {
		t.Fatal(err)
	}
	want := `Measurement: NOISY — other processes used 1.60 of 2 cores (stress[4242] 0.98); latency and throughput figures are inflated, CPU per request far less
Status: degraded — the CPU profile failed: cpu profiling already in use
Errors: 3.0% of 1000 requests failed (25 refused: the service was not accepting connections, 5 timeout)
SLO: 2 of 2 missed
  ✗ p99<100ms  p99=127.30 ms
  ✗ errors<1%  errors=3.0%
`
	if b.String() != want {
		t.Errorf("headline:\n%s\nwant:\n%s", b.String(), want)
	}
	quiet := &runfmt.Run{Status: runfmt.StatusComplete, Quality: &runfmt.Quality{Verdict: runfmt.QualityClean, HostCores: 2, OtherCores: 0.02},
		Load: &runfmt.LoadResult{Requests: 1000, Errors: 5, ErrorKinds: map[string]int64{"timeout": 5}}}
	b.Reset()
	if err := WriteHeadline(&b, quiet); err != nil || b.String() != "Measurement: clean — other processes used 0.02 of 2 cores\n" {
		t.Errorf("a clean run with 0.5%% timeouts: %q, %v", b.String(), err)
	}
}

// The report shows the headline above everything else.
func TestHeadlineHTMLFirst(t *testing.T) {
	var b bytes.Buffer
	if err := writeHTML(&b, headlineRun(), nil); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	at := func(s string) int {
		i := strings.Index(page, s)
		if i < 0 {
			t.Fatalf("report.html lacks %q", s)
		}
		return i
	}
	main := at("<main>")
	for _, s := range []string{"Measurement:</b> NOISY", "Status:</b> degraded — the CPU profile failed", "Errors:</b> 3.0%", "<td>✗</td><td class=\"mono\">p99&lt;100ms</td>", `class="badge degraded"`} {
		if i := at(s); i > at(`id="findings"`) || (s != `class="badge degraded"` && i < main) {
			t.Errorf("%q is not at the top of the report", s)
		}
	}
}
