package batch

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/capture"
	"perflab/internal/findings"
	"perflab/internal/runfmt"
	"perflab/internal/service"
	"perflab/internal/session"
)

// TestBatchTimelines: the sampler's readings become steps cut to the run;
// a Go program's scheduler trace becomes steps placed from the earliest
// its lines were read, the trace of two processes none; perf's samples
// count in the steps they fall in.
func TestBatchTimelines(t *testing.T) {
	start := time.Now()
	at := func(s float64) time.Time { return start.Add(time.Duration(s * float64(time.Second))) }
	smp := []service.Sample{{T: at(-0.05)}, {T: at(0.1), CPUSeconds: 0.1, RunqueueWaitSeconds: 0.05}, {T: at(0.6), CPUSeconds: 0.6, RunqueueWaitSeconds: 0.05}, {T: at(1.05), CPUSeconds: 1.05, RunqueueWaitSeconds: 0.1}}
	tl := sampledSteps(start, smp, 1)
	want := []struct{ from, to, busy, wait float64 }{{0, 0.1, 0.1, 0.05}, {0.1, 0.6, 0.5, 0}, {0.6, 1, 0.45, 0.05}}
	if len(tl.Slices) != len(want) {
		t.Fatalf("sampled steps %+v; want %v", tl.Slices, want)
	}
	for i, w := range want {
		if s := tl.Slices[i]; !nearly(s.From, w.from) || !nearly(s.To, w.to) || !nearly(s.BusyS, w.busy) || !nearly(s.WaitS, w.wait) {
			t.Errorf("sampled step %d %+v; want %+v", i, s, w)
		}
	}

	var st schedTrace
	for i := range 6 {
		l := fmt.Sprintf("SCHED %dms: gomaxprocs=2 idleprocs=%d threads=4 spinningthreads=0 needspinning=0 idlethreads=2 runqueue=0 [ 0 0 ] schedticks=[ 1 1 ]", 100*i, i%2)
		st.add(l)
		// Read 30 ms after the runtime's start and 10 to 40 ms later.
		st.read[i] = at(0.03 + 0.1*float64(i) + 0.01*float64(i%4))
	}
	tl = st.timeline(start, 1, nil)
	if tl.Source != runfmt.SourceGoScheduler || len(tl.Slices) != 6 || !nearly(tl.StepS, 0.1) {
		t.Fatalf("scheduler steps %+v; want 6 of 0.1 s", tl)
	}
	if s := tl.Slices[1]; !nearly(s.From, 0.08) || !nearly(s.To, 0.18) || !nearly(s.BusyS, 0.1) || !nearly(tl.Slices[0].BusyS, 2*0.08) {
		t.Errorf("scheduler steps %+v; want the second from 0.08 s to 0.18 s, one P busy", tl.Slices)
	}
	st.add("SCHED 50ms: gomaxprocs=2 idleprocs=0 threads=4 spinningthreads=0 needspinning=0 idlethreads=2 runqueue=0 [ 0 0 ] schedticks=[ 1 1 ]")
	if tl := st.timeline(start, 1, nil); len(tl.Slices) != 0 {
		t.Errorf("the trace of two processes gave steps %+v", tl.Slices)
	}

	p := &profile.Profile{Period: 1e7}
	s1, s2 := &profile.Sample{Value: []int64{3, 3e7}}, &profile.Sample{Value: []int64{1, 1e7}}
	p.Sample = []*profile.Sample{s1, s2}
	b := &batch{start: start, end: at(0.25), startMono: time.Hour, cpu: p, perf: &batchPerf{times: []capture.SampleTime{
		{Sample: s1, Mono: time.Hour + 10*time.Millisecond}, {Sample: s2, Mono: time.Hour + 20*time.Millisecond}, {Sample: s1, Mono: time.Hour + 150*time.Millisecond},
		{Sample: s1, Mono: time.Hour - time.Millisecond}}}}
	tl = b.perfTimeline(0.25)
	if len(tl.Slices) != 3 || !nearly(tl.Slices[0].BusyS, 0.02) || !nearly(tl.Slices[1].BusyS, 0.01) || tl.Slices[2].BusyS != 0 || !nearly(tl.Slices[2].To, 0.25) {
		t.Errorf("perf steps %+v; want 20 ms, 10 ms and none", tl.Slices)
	}
	span := b.spanProfile(time.Hour, time.Hour+100*time.Millisecond)
	if len(span.Sample) != 2 || span.Sample[0].Value[0] != 1 || span.Sample[0].Value[1] != 1e7 || span.Sample[1].Value[0] != 1 {
		t.Errorf("span profile samples %v %v; want one sample of each stack", span.Sample[0].Value, span.Sample[1].Value)
	}
}

// TestBatchScheduleGaps: where the scheduler's trace has a gap between
// lines that differ, the change is put where the sampled timeline's
// demand changes most, when it changes the same way; else halfway.
func TestBatchScheduleGaps(t *testing.T) {
	start := time.Now()
	var st schedTrace
	lines := []struct {
		ms, idle int
	}{{0, 1}, {100, 1}, {200, 1}, {300, 1}, {400, 1}, {1200, 0}, {1300, 0}}
	for _, l := range lines {
		st.add(fmt.Sprintf("SCHED %dms: gomaxprocs=2 idleprocs=%d threads=4 spinningthreads=0 needspinning=0 idlethreads=2 runqueue=0 [ 0 0 ] schedticks=[ 1 1 ]", l.ms, l.idle))
		st.read[len(st.read)-1] = start.Add(time.Duration(l.ms) * time.Millisecond)
	}
	sampled := steps(0.1, 1.3, 1.2, 1.4, 1.3, 1.2, 1.4, 2.3, 1.9, 2.1, 2.2, 1.9, 2.0, 2.1, 2.2)
	split := func(from, to float64, rising bool) (float64, bool) { return changePoint(sampled, from, to, rising) }
	for _, c := range []struct {
		split gapSplit
		want  float64
	}{{split, 0.6}, {nil, 0.8}} {
		tl := st.timeline(start, 1.4, c.split)
		if len(tl.Slices) != 7 || !nearly(tl.Slices[4].To, c.want) || !nearly(tl.Slices[5].From, c.want) {
			t.Errorf("split %t: steps %+v; want the gap split at %g s", c.split != nil, tl.Slices, c.want)
		}
	}
	sampled = steps(0.1, 1.3, 1.2, 1.4, 1.3, 1.2, 1.4, 1.3, 1.2, 1.3, 2.1, 2.2, 1.9, 2.0, 2.1)
	if tl := st.timeline(start, 1.4, split); !nearly(tl.Slices[4].To, 0.9) {
		t.Errorf("steps %+v; want the gap split at 0.9 s, where the demand rose", tl.Slices)
	}
	if _, ok := changePoint(sampled, 0.4, 1.2, false); ok {
		t.Error("a demand that rises was taken for one that falls")
	}
}

// steps is a sampled timeline of step-second slices of the demands given.
func steps(step float64, demand ...float64) findings.Timeline {
	tl := findings.Timeline{Source: runfmt.SourceSampler, StepS: step}
	for i, d := range demand {
		tl.Slices = append(tl.Slices, findings.Slice{From: float64(i) * step, To: float64(i+1) * step, BusyS: d * step})
	}
	return tl
}

func nearly(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// TestBatchTraceScheduler: a Go program gets GODEBUG=schedtrace beside the
// GODEBUG settings it has, from --env or else perflab's environment, and
// its trace is kept out of its last lines; a GODEBUG that sets the trace
// itself is left as it is, its trace in the output.
func TestBatchTraceScheduler(t *testing.T) {
	t.Setenv("GODEBUG", "madvdontneed=1")
	for _, c := range []struct {
		env  []string
		want string // the GODEBUG added, "" for none
	}{
		{nil, "madvdontneed=1,schedtrace=25"},
		{[]string{"GODEBUG=gctrace=1", "GOMAXPROCS=16"}, "gctrace=1,schedtrace=63"},
		{[]string{"GODEBUG="}, "schedtrace=25"},
		{[]string{"GODEBUG=schedtrace=0"}, ""},
		{[]string{"GODEBUG=x=1, schedtrace=500"}, ""},
	} {
		b := &batch{cfg: Config{Config: session.Config{Env: c.env, Budget: service.Budget{CPUs: 2}}}, goVersion: "go1.26.0"}
		lc := service.LaunchConfig{Env: c.env}
		b.traceScheduler(&lc)
		got, _ := lookupEnv(lc.Env, "GODEBUG")
		if c.want == "" {
			if len(lc.Env) != len(c.env) || lc.HideLine != nil {
				t.Errorf("env %q: %q, hidden %t; want it as it was, the trace shown", c.env, lc.Env, lc.HideLine != nil)
			}
		} else if got != c.want || lc.HideLine == nil {
			t.Errorf("env %q: GODEBUG %q, hidden %t; want %q, hidden", c.env, got, lc.HideLine != nil, c.want)
		}
		if lc.OnLine == nil || lc.LineMatch != capture.SchedLineMatch {
			t.Errorf("env %q: the trace's lines are not read", c.env)
		}
	}
}
