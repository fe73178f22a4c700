package runfmt

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// TestOldWordsReadIntoNotes: a run.json of schema 4 or older, whose words
// stood under keys of their own, reads each into the field that now holds
// it; the run is written with the keys that end in note alone, and reads
// back the same. A degraded reason becomes a degradation that is its note
// alone.
func TestOldWordsReadIntoNotes(t *testing.T) {
	old := `{"schema_version": 4, "name": "x", "id": "20260101-000000-x", "status": "degraded",
		"partial_reason": "PR", "degraded_reasons": ["DR1", "DR2"], "warnings": ["W"],
		"quality": {"verdict": "noisy", "summary": "QS", "reasons": ["QR"], "valid": ["QV"], "invalid": ["QI"], "host_cores": 2},
		"target": {"cpu_cores_mean": 0.5, "verdict": "TV", "source": "proc"},
		"profiles": [{"type": "cpu", "source": "perf", "file": "profiles/cpu.pb.gz",
			"stacks": {"reach": false, "reason": "SR", "remedy": "SM", "unwind_why": "UW", "median_frames": 1, "shallow_share": 0.9}}],
		"profiling": {"not_representative": "NR", "stacks_unreachable": "SU", "stacks_remedy": "SF",
			"runtime_work": [{"work": "gc", "share": 0.1, "remedy": "RR"}, {"work": "jit", "share": 0, "not_measured": "RN"}]},
		"stuck": {"reason": "STR", "at_s": 1, "in_flight": 3, "threads": 4, "groups": [], "processes": []},
		"ledger": {"time": {"latency_ms": 1, "requests": 1, "unexplained_ms": 0, "explained_pct": 100,
			"rows": [{"part": "accept", "not_measured": "LN", "peer": {"address": "a", "answers_per_request": 1, "answer_ms": 1, "read_delay_ms": 0, "cpu_not_measured": "PN"}}]},
			"cpu": {"measured_ms": 1, "source": "proc", "not_profiled": "NP", "unexplained_ms": 0},
			"kernel": {"unavailable": "KU", "unmeasured": {"accept backlog": "KM"}}},
		"find_max": {"slo": "p99<1s", "step_s": 1, "max_rps": 1, "cpu_ms_per_request": 1, "below_budget": "BB",
			"steps": [{"rate": 1, "rps": 1, "p99_ms": 1, "requests": 1, "errors": 0, "cpu_cores": 1, "cpu_ms_per_request": 1, "pass": false, "reason": "FR"}]},
		"endpoints": {"source": "ES", "explained_pct": 100, "unattributed_pct": 0},
		"findings": [{"kind": "gc", "title": "FT", "detail": "FD", "evidence": {"noise": ["EN"]}}],
		"bench": {"count": 1, "benchmarks": [{"name": "B", "cpu": {"file": "f", "ops": 1, "per_op": 1, "lines": [], "user_per_op": 1, "method": "BM"}}]}}`
	r, err := Read(strings.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	st, pr, led := r.Profiles[0].Stacks, r.Profiling, r.Ledger
	for _, c := range []struct{ name, got, want string }{
		{"partial_reason", r.PartialReason, "PR"}, {"warnings", strings.Join(r.Warnings, ","), "W"},
		{"quality.summary", r.Quality.SummaryNote, "QS"}, {"quality.reasons", strings.Join(r.Quality.ReasonNotes, ","), "QR"},
		{"quality.valid", strings.Join(r.Quality.ValidNotes, ","), "QV"}, {"quality.invalid", strings.Join(r.Quality.InvalidNotes, ","), "QI"},
		{"target.verdict", r.Target.Verdict, "TV"}, {"stacks.reason", st.Reason, "SR"}, {"stacks.remedy", st.Remedy, "SM"},
		{"stacks.unwind_why", st.UnwindWhy, "UW"}, {"profiling.not_representative", pr.NotRepresentative, "NR"},
		{"profiling.stacks_unreachable", pr.StacksUnreachable, "SU"}, {"profiling.stacks_remedy", pr.StacksRemedy, "SF"},
		{"runtime_work[0].remedy", pr.RuntimeWork[0].Remedy, "RR"}, {"runtime_work[1].not_measured", pr.RuntimeWork[1].NotMeasured, "RN"},
		{"stuck.reason", r.Stuck.Reason, "STR"}, {"rows[0].not_measured", led.Time.Rows[0].NotMeasured, "LN"},
		{"rows[0].peer.cpu_not_measured", led.Time.Rows[0].Peer.CPUNotMeasured, "PN"}, {"cpu.not_profiled", led.CPU.NotProfiled, "NP"},
		{"kernel.unavailable", led.Kernel.Unavailable, "KU"}, {"kernel.unmeasured", led.Kernel.Unmeasured["accept backlog"], "KM"},
		{"find_max.below_budget", r.FindMax.BelowBudget, "BB"}, {"find_max.steps[0].reason", r.FindMax.Steps[0].Reason, "FR"},
		{"endpoints.source", r.Endpoints.Source, "ES"}, {"findings[0].title", r.Findings[0].Title, "FT"},
		{"findings[0].detail", r.Findings[0].Detail, "FD"}, {"findings[0].evidence.noise", strings.Join(r.Findings[0].Evidence.Noise, ","), "EN"},
		{"bench...method", r.Bench.Benchmarks[0].CPU.Method, "BM"},
	} {
		if c.got != c.want {
			t.Errorf("%s read as %q; want %q", c.name, c.got, c.want)
		}
	}
	if want := []Degradation{{Note: "DR1"}, {Note: "DR2"}}; !reflect.DeepEqual(r.Degradations, want) {
		t.Errorf("degraded_reasons read as %+v; want %+v", r.Degradations, want)
	}
	if st.Reach || st.MedianFrames != 1 || st.ShallowShare != 0.9 || r.Quality.HostCores != 2 || r.Target.CPUCoresMean != 0.5 {
		t.Errorf("the other fields were not read: stacks %+v, quality %+v, target %+v", st, r.Quality, r.Target)
	}
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, k := range []string{"degraded_reasons", `"warnings"`, `"summary"`, `"reasons"`, `"valid"`, `"invalid"`,
		`"verdict": "TV"`, `"reason"`, `"remedy"`, `"unwind_why"`, `"not_representative"`, `"stacks_unreachable"`, `"stacks_remedy"`,
		`"not_measured"`, `"cpu_not_measured"`, `"not_profiled"`, `"unavailable"`, `"unmeasured"`, `"below_budget"`, `"source": "ES"`,
		`"title"`, `"detail"`, `"noise"`, `"method"`} {
		if strings.Contains(out, k) {
			t.Errorf("run.json written with the old key %s", k)
		}
	}
	back, err := Read(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, r) {
		t.Errorf("written and read again, the run differs:\n%+v\nwant\n%+v", back, r)
	}
}

// TestReadNamesTheFieldInsideAnOldKeysReader: a word unknown to its
// vocabulary inside a record that reads old keys is named by its field,
// as in any other.
func TestReadNamesTheFieldInsideAnOldKeysReader(t *testing.T) {
	for doc, want := range map[string]string{
		`"quality": {"verdict": "noisy", "causes": ["storm"]}`:           `run.json: quality.causes[0]: unknown noise cause "storm"`,
		`"degradations": [{"profile": "cpu", "why": "tired"}]`:           `run.json: degradations[0].why: unknown degradation "tired"`,
		`"findings": [{"kind": "gc"}, {"kind": "gc", "advice": "pray"}]`: `run.json: findings[1].advice: unknown advice "pray"`,
		`"profiling": {"stack_reach": {"reach": false, "fix": "pray"}}`:  `run.json: profiling.stack_reach.fix: unknown stack fix "pray"`,
	} {
		_, err := Read(strings.NewReader(`{"schema_version": 5, "name": "x", "id": "x", "status": "complete", ` + doc + `}`))
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v; want %s", doc, err, want)
		}
	}
}
