package findings

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
)

// A Python handler sleeps on one line and calls a peer on the next: each
// wait finding names its own line, with its wait per request.
func TestAttachWaitLines(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app.py")
	src := "def handler():\n    start = time.monotonic()\n    time.sleep(0.03)\n    r = client.get(peer_url())\n    return r.text\n"
	if err := os.WriteFile(app, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &profile.Profile{DefaultSampleType: runfmt.WallSample,
		SampleType: []*profile.ValueType{{Type: runfmt.WallSample, Unit: "nanoseconds"}, {Type: runfmt.OffCPUSample, Unit: "nanoseconds"}}}
	fn := &profile.Function{ID: 1, Name: "handler", Filename: app}
	get := &profile.Function{ID: 2, Name: "Client.get", Filename: "/venv/lib/python3.11/site-packages/httpx/_client.py"}
	p.Function = []*profile.Function{fn, get}
	loc := func(f *profile.Function, line int64) *profile.Location {
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: f, Line: line}}}
		p.Location = append(p.Location, l)
		return l
	}
	add := func(wait runfmt.Wait, ms int64, locs ...*profile.Location) {
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{ms * 1e8, ms * 1e8},
			Label: map[string][]string{runfmt.WaitLabel: {string(wait)}}})
	}
	add(runfmt.WaitSleep, 30, loc(fn, 3))
	add(runfmt.WaitDownstream, 40, loc(get, 900), loc(fn, 4))
	add(runfmt.WaitCPU, 2, loc(fn, 5))
	culprit := func(kind runfmt.FindingKind, us float64) runfmt.Finding {
		return runfmt.Finding{Kind: kind, Figures: runfmt.Figures{runfmt.FigWaitPerRequest: us},
			Evidence: runfmt.Evidence{Functions: []runfmt.FuncEvidence{{Role: runfmt.RoleCulprit, Function: "handler", File: app}}}}
	}
	fs := []runfmt.Finding{culprit(runfmt.FindingDownstreamWait, 40000), culprit(runfmt.FindingSleep, 30000), culprit(runfmt.FindingGCPause, 1000)}
	AttachWaitLines(p, fs, &analysis.Sources{}, analysis.UserCode{})
	for i, want := range []struct {
		line int64
		text string
	}{{4, "r = client.get(peer_url())"}, {3, "time.sleep(0.03)"}} {
		ls := fs[i].Lines
		if len(ls) != 1 || ls[0].Line != want.line || ls[0].Text != want.text || ls[0].CostUsPerRequest != fs[i].Figures[runfmt.FigWaitPerRequest] {
			t.Errorf("%s lines %+v; want line %d, %q, all its wait", fs[i].Kind, ls, want.line, want.text)
		}
	}
	if len(fs[2].Lines) != 0 {
		t.Errorf("gc-pause lines %+v; want none: the collector stops requests wherever they are", fs[2].Lines)
	}
}
