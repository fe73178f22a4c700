package runfmt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestWriteReadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	cores := 0.5
	in := &Run{SchemaVersion: SchemaVersion, Name: "svc", ID: "20260102-030405-svc", Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Status: StatusPartial, PartialReason: "interrupted", Config: Config{URL: "http://127.0.0.1:8080/", CPUs: 0.5, Load: map[string]string{"rate": "100"}},
		Load:   &LoadResult{Model: "open", Requests: 10, Status: map[string]int64{"200": 10}, Series: []SeriesPoint{{T: 0, Requests: 10, CPUCores: &cores}}},
		Target: &TargetSummary{CPUMsPerRequest: 1.5, Source: "cgroup-v2"}, Findings: []Finding{{Kind: FindingGC, Figures: Figures{FigShare: 0.2, FigCPUPerRequest: 30},
			Settings: Settings{SettingGOGC: "100"}, Advice: AdviceAllocateLess,
			Evidence: Evidence{Functions: []FuncEvidence{{Role: RoleAllocator, Function: "main.parse", Figures: Figures{FigBytesPerRequest: 4096}}}}}},
		Profiles: []ProfileRef{{Type: ProfileCPU, Source: SourceProfilers(ProfilerPerf, ProfilerPySpy), File: "profiles/cpu.pb.gz"},
			{Type: ProfileWall, Source: SourceTime(TimeSourceGoTrace), File: "profiles/wall.pb.gz"}},
		Time: &TimePerRequest{Source: TimeSourceGoTrace, Kinds: []TimeRow{{Kind: TimeSync, MsPerRequest: 2, Waits: map[Wait]float64{WaitLock: 1.5, WaitChannel: 0.5}}}},
		Profiling: &Profiling{Processes: []ProcessProfile{{PID: 7, Runtime: RuntimePython, Profiler: ProfilerPySpy}},
			Profilers: []ProfilerUse{{Tool: ProfilerPySpy, Role: RoleOffCPU, Processes: 1}}}}
	if err := WriteFile(dir, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip changed the run:\n%+v\n%+v", in, out)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".run-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestReadRefusesNewerAndForeignFiles(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"schema_version": 99, "name": "x"}`, "newer than this perflab"},
		{`{"name": "x"}`, "not a perflab run"},
		{`not json`, "decoding run.json"},
	} {
		path := filepath.Join(t.TempDir(), FileName)
		os.WriteFile(path, []byte(tc.body), 0o644)
		if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadFile(%s) = %v; want an error with %q", tc.body, err, tc.want)
		}
	}
}

// TestReadNamesTheFieldOfAnUnknownWord: a run.json with a word no
// vocabulary knows is refused in one line that names the field (with its
// index) and the word; a newer perflab's run says to upgrade instead.
func TestReadNamesTheFieldOfAnUnknownWord(t *testing.T) {
	const ok = `{"schema_version": 2, "name": "x", "findings": [{"kind": "gc"}, {"kind": "off-cpu"}, %s],
		"profiles": [%s], "time_per_request": {"source": %s, "kinds": [{"kind": "running"}, %s]},
		"profiling": {"processes": [{"pid": 1, "runtime": %s, "profiler": "perf"}]}}`
	good := []string{`{"kind": "sleep"}`, `{"type": "cpu", "source": "perf+py-spy"}`, `"go-trace"`, `{"kind": "sync", "waits": {"lock": 1}}`, `"python"`}
	fill := func(i int, v string) string {
		args := make([]any, len(good))
		for j, g := range good {
			args[j] = g
		}
		if i >= 0 {
			args[i] = v
		}
		return fmt.Sprintf(ok, args...)
	}
	if _, err := Read(strings.NewReader(fill(-1, ""))); err != nil {
		t.Fatalf("a run.json with known words: %v", err)
	}
	for _, tc := range []struct {
		arg   int
		value string
		want  string
		vocab string
	}{
		{0, `{"kind": "foo"}`, `run.json: findings[2].kind: unknown finding kind "foo"`, "finding kind"},
		{1, `{"type": "flame", "source": "pprof"}`, `run.json: profiles[0].type: unknown profile type "flame"`, "profile type"},
		{1, `{"type": "cpu", "source": "JFR"}`, `run.json: profiles[0].source: unknown profile source "JFR"`, "profile source"},
		{2, `"strace"`, `run.json: time_per_request.source: unknown time source "strace"`, "time source"},
		{3, `{"kind": "waiting"}`, `run.json: time_per_request.kinds[1].kind: unknown kind of wall time "waiting"`, "kind of wall time"},
		{3, `{"kind": "sync", "waits": {"lock": 1, "spin": 2}}`, `run.json: time_per_request.kinds[1].waits["spin"]: unknown wait "spin"`, "wait"},
		{4, `"cobol"`, `run.json: profiling.processes[0].runtime: unknown runtime "cobol"`, "runtime"},
		{0, `{"kind": "gc", "figures": {"share": 0.2, "speed": 1}}`, `run.json: findings[2].figures["speed"]: unknown figure "speed"`, "figure"},
		{0, `{"kind": "gc", "settings": {"gogc": "100", "colour": "red"}}`, `run.json: findings[2].settings["colour"]: unknown setting "colour"`, "setting"},
		{0, `{"kind": "gc", "advice": "pray"}`, `run.json: findings[2].advice: unknown advice "pray"`, "advice"},
		{0, `{"kind": "gc", "evidence": {"functions": [{"role": "culprit", "function": "f"}, {"role": "suspect", "function": "g"}]}}`,
			`run.json: findings[2].evidence.functions[1].role: unknown role "suspect"`, "role"},
	} {
		_, err := Read(strings.NewReader(fill(tc.arg, tc.value)))
		var ue *UnknownError
		if err == nil || err.Error() != tc.want || !errors.As(err, &ue) || ue.Vocabulary != tc.vocab || len(ue.Known) == 0 {
			t.Errorf("%s: %v; want %q", tc.value, err, tc.want)
		}
	}
	newer := strings.Replace(fill(0, `{"kind": "foo"}`), `"schema_version": 2`, `"schema_version": 99`, 1)
	if _, err := Read(strings.NewReader(newer)); err == nil || !strings.Contains(err.Error(), "newer than this perflab") {
		t.Errorf("a newer perflab's run with a new finding kind: %v; want the upgrade message", err)
	}
	path := filepath.Join(t.TempDir(), FileName)
	os.WriteFile(path, []byte(fill(0, `{"kind": "foo"}`)), 0o644)
	if _, err := ReadFile(path); err == nil || err.Error() != path+`: findings[2].kind: unknown finding kind "foo"` {
		t.Errorf("ReadFile: %v; want the file, the field and the word", err)
	}
}
