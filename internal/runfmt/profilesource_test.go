package runfmt

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestProfileSourceJSON: one profiler or a time source is a name, several
// profilers a list; the "+"-joined names perflab wrote before schema 3 read
// as the same set, and what was written reads back the same.
func TestProfileSourceJSON(t *testing.T) {
	both := SourceProfilers(ProfilerPySpy, ProfilerPerf)
	for _, tc := range []struct {
		src  ProfileSource
		json string
	}{
		{SourceProfilers(ProfilerPprof), `"pprof"`},
		{SourceTime(TimeSourceGoTrace), `"go-trace"`},
		{SourceTime(TimeSourcePerfSched), `"perf-sched"`},
		{SourceTime(TimeSourcePySpy), `"py-spy"`}, // py-spy's wall time is py-spy's
		{both, `["perf","py-spy"]`},
		{SourceProfilers("yourkit"), `"yourkit"`}, // a registered profiler's own name
		{SourceProfilers(ProfilerPerf, "yourkit"), `["perf","yourkit"]`},
		{ProfileSource{}, `""`},
	} {
		b, err := json.Marshal(tc.src)
		if err != nil || string(b) != tc.json {
			t.Errorf("%v marshals to %s, %v; want %s", tc.src, b, err, tc.json)
		}
		var back ProfileSource
		if err := json.Unmarshal(b, &back); err != nil || back != tc.src {
			t.Errorf("%s reads as %+v, %v; want %+v", b, back, err, tc.src)
		}
	}
	for _, legacy := range []string{`"perf+py-spy"`, `"py-spy+perf"`} {
		var s ProfileSource
		if err := json.Unmarshal([]byte(legacy), &s); err != nil || s != both || s.String() != "perf+py-spy" {
			t.Errorf("%s reads as %+v (%q), %v; want the set of perf and py-spy", legacy, s, s, err)
		}
	}
	for _, bad := range []string{`"pprof+go-trace"`, `"JFR"`, `["perf","your kit"]`, `"perf+"`} {
		var s ProfileSource
		err := json.Unmarshal([]byte(bad), &s)
		var ue *UnknownError
		if !errors.As(err, &ue) || ue.Vocabulary != "profile source" || !strings.Contains(err.Error(), "perf-sched") {
			t.Errorf("%s: %v; want an unknown profile source, naming the known ones", bad, err)
		}
	}
}
