package decide

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"perflab/internal/profiling"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// TestUnreadableTraceWarnsOnce: a trace that is cut off, not a trace, or
// of a Go version this build does not read gives one warning and no time
// per request: nothing is made of part of a trace.
func TestUnreadableTraceWarnsOnce(t *testing.T) {
	good, err := os.ReadFile("../walltime/testdata/sleep.trace")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", good[:len(good)*2/3], "ends early"},
		{"foreign", []byte("\x1f\x8b\x08\x00 a gzipped profile"), "not a Go execution trace"},
		{"newer Go", append([]byte("go 1.31 trace\x00\x00\x00"), good[16:]...), "Go 1.31"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from := time.Now()
			run := &runfmt.Run{Load: &runfmt.LoadResult{Requests: 100,
				Series: []runfmt.SeriesPoint{{T: 0, Requests: 50}, {T: 1, Requests: 50}}}}
			prof := profiling.New(noHost{}, profiling.Config{})
			prof.SetWindow(from, from.Add(2*time.Second))
			d := New(Input{Run: run, Profiles: prof, Warn: func(m string) { run.Warnings = append(run.Warnings, m) }}).d
			d.analyseTrace(&profiling.Trace{Data: tc.data, From: from})
			if len(run.Warnings) != 1 || !strings.Contains(run.Warnings[0], tc.want) || !strings.Contains(run.Warnings[0], "no time split") {
				t.Errorf("warnings %q; want one naming %q and what is lost", run.Warnings, tc.want)
			}
			if run.Time != nil {
				t.Errorf("time per request %+v from an unreadable trace", run.Time)
			}
		})
	}
}

// noHost is a run with no directory and no process: profiling's host
// for a decision made from profiles given.
type noHost struct{}

func (noHost) Warn(string)                       {}
func (noHost) Degrade(runfmt.Degradation)        {}
func (noHost) AddProfile(runfmt.ProfileRef)      {}
func (noHost) Dir() string                       { return "" }
func (noHost) Service() *service.Process         { return nil }
func (noHost) ServicePIDs(context.Context) []int { return nil }

func TestRequestsIn(t *testing.T) {
	series := []runfmt.SeriesPoint{{T: 0, Requests: 100}, {T: 1, Requests: 200}, {T: 2, Requests: 300}}
	if n := requestsIn(series, 0.5, 2.5); n != 50+200+150 {
		t.Errorf("requestsIn(0.5 s, 2.5 s) = %d; want 400 (half of each end second)", n)
	}
}
