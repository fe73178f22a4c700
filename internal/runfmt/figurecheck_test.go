package runfmt

import (
	"errors"
	"strings"
	"testing"
)

// Read refuses a run.json whose numbers no measurement holds, naming the
// field, and accepts the numbers that may be negative or above 100%.
func TestReadRefusesFiguresNoMeasurementHolds(t *testing.T) {
	for _, tc := range []struct {
		doc, field, why string
	}{
		{`"load": {"requests": -5}`, "load.requests", "-5: a count cannot be negative"},
		{`"time_per_request": {"scheduler": {"goroutines_max": -5}}`, "time_per_request.scheduler.goroutines_max", "-5: a count cannot be negative"},
		{`"ledger": {"time": {"explained_pct": -50}}`, "ledger.time.explained_pct", "-50: a percentage outside 0 to 100"},
		{`"target": {"throttled_pct": 100.5}`, "target.throttled_pct", "100.5: a percentage outside 0 to 100"},
		{`"load": {"latency_ms": {"p99": 1e308}}`, "load.latency_ms.p99", "1e+308: too large to be a measurement"},
		{`"load": {"latency_ms": {"p50": -5}}`, "load.latency_ms.p50", "-5: a time, size or count cannot be negative"},
		{`"target": {"cpu_ms_per_request": -5}`, "target.cpu_ms_per_request", "cannot be negative"},
		{`"target": {"cpu_cores_mean": -1}`, "target.cpu_cores_mean", "cannot be negative"},
		{`"findings": [{"kind": "gc", "figures": {"share": 1.5}}]`, `findings[0].figures["share"]`, "1.5: a share outside 0 to 1"},
		{`"findings": [{"kind": "gc", "figures": {"goroutines_start": -5}}]`, `findings[0].figures["goroutines_start"]`, "cannot be negative"},
		{`"findings": [{"kind": "gc", "evidence": {"functions": [{"role": "site", "function": "f", "figures": {"cpu_us_per_request": -3}}]}}]`,
			`findings[0].evidence.functions[0].figures["cpu_us_per_request"]`, "cannot be negative"},
		{`"batch": {"measurement_cost": {"pct": -5}}`, "batch.measurement_cost.pct", "cannot be negative"},
		{`"batch": {"threads": {"pid": 1, "states": [{"state": "on-cpu", "seconds": -5}]}}`, "batch.threads.states[0].seconds", "cannot be negative"},
	} {
		_, err := Read(strings.NewReader(`{"schema_version": 4, ` + tc.doc + `}`))
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(err.Error(), tc.why) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want %s refused: %s", tc.doc, err, tc.field, tc.why)
		}
	}
	for _, doc := range []string{
		`"target": {"exit_code": -1, "throttled_pct": 100.004}`,
		`"heap_growth": {"slope_mib_per_s": -0.4, "sites": [{"function": "f", "mib_per_s": -0.1}]}`,
		`"batch": {"measurement_cost": {"pct": 150}}`,
		`"findings": [{"kind": "memory-growth", "figures": {"heap_bytes_per_s": -1000}}]`,
		`"profiles": [{"type": "cpu", "source": ["perf"], "file": "x", "start_s": -0.5}]`,
	} {
		if _, err := Read(strings.NewReader(`{"schema_version": 4, ` + doc + `}`)); err != nil {
			t.Errorf("%s: %v; want it read", doc, err)
		}
	}
}
