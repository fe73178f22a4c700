package capture

import (
	"testing"
	"time"
)

func TestParseGCLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		ok   bool
		want GCEvent
	}{
		{
			line: "gc 12 @3.456s 4%: 0.021+1.2+0.015 ms clock, 0.042+0.5/1.1/0+0.030 ms cpu, 4->5->2 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P",
			ok:   true,
			want: GCEvent{N: 12, At: 3456 * time.Millisecond, PctCPUSinceStart: 4,
				STWSweep: 21 * time.Microsecond, Concurrent: 1200 * time.Microsecond, STWMark: 15 * time.Microsecond,
				CPUSTWSweep: 42 * time.Microsecond, CPUAssist: 500 * time.Microsecond, CPUBackground: 1100 * time.Microsecond,
				CPUIdle: 0, CPUSTWMark: 30 * time.Microsecond,
				HeapStartMiB: 4, HeapEndMiB: 5, HeapLiveMiB: 2, GoalMiB: 5, Procs: 2},
		},
		{ // Go 1.19 and before: no stacks or globals.
			line: "gc 1 @0.012s 2%: 0.026+0.39+0.10 ms clock, 0.21+0.12/0.33/0.62+0.80 ms cpu, 4->4->0 MB, 5 MB goal, 8 P",
			ok:   true,
			want: GCEvent{N: 1, At: 12 * time.Millisecond, PctCPUSinceStart: 2,
				STWSweep: 26 * time.Microsecond, Concurrent: 390 * time.Microsecond, STWMark: 100 * time.Microsecond,
				CPUSTWSweep: 210 * time.Microsecond, CPUAssist: 120 * time.Microsecond, CPUBackground: 330 * time.Microsecond,
				CPUIdle: 620 * time.Microsecond, CPUSTWMark: 800 * time.Microsecond,
				HeapStartMiB: 4, HeapEndMiB: 4, HeapLiveMiB: 0, GoalMiB: 5, Procs: 8},
		},
		{ // forced, with text another writer left before it
			line: "INFO started gc 179 @0.147s 9%: 0.075+0.19+0.001 ms clock, 0.15+0/0.072/0+0.003 ms cpu, 4->4->3 MB, 8 MB goal, 1 MB stacks, 2 MB globals, 2 P (forced)",
			ok:   true,
			want: GCEvent{N: 179, At: 147 * time.Millisecond, PctCPUSinceStart: 9,
				STWSweep: 75 * time.Microsecond, Concurrent: 190 * time.Microsecond, STWMark: 1 * time.Microsecond,
				CPUSTWSweep: 150 * time.Microsecond, CPUBackground: 72 * time.Microsecond, CPUSTWMark: 3 * time.Microsecond,
				HeapStartMiB: 4, HeapEndMiB: 4, HeapLiveMiB: 3, GoalMiB: 8, StacksMiB: 1, GlobalsMiB: 2, Procs: 2, Forced: true},
		},
		{ // Go 1.26: a cycle that also looked for leaked goroutines
			line: "gc 7 @1.250s 3% (checking for goroutine leaks): 0.030+2.1+0.020 ms clock, 0.060+0.4/1.9/0.1+0.040 ms cpu, 6->7->3 MB, 7 MB goal, 0 MB stacks, 1 MB globals, 2 P",
			ok:   true,
			want: GCEvent{N: 7, At: 1250 * time.Millisecond, PctCPUSinceStart: 3,
				STWSweep: 30 * time.Microsecond, Concurrent: 2100 * time.Microsecond, STWMark: 20 * time.Microsecond,
				CPUSTWSweep: 60 * time.Microsecond, CPUAssist: 400 * time.Microsecond, CPUBackground: 1900 * time.Microsecond,
				CPUIdle: 100 * time.Microsecond, CPUSTWMark: 40 * time.Microsecond,
				HeapStartMiB: 6, HeapEndMiB: 7, HeapLiveMiB: 3, GoalMiB: 7, GlobalsMiB: 1, Procs: 2},
		},
		{line: "scvg: 0 MB released", ok: false},
		{line: "GET /api 200 12ms", ok: false},
		{line: "bigc 1 @0.1s 1%: 1+1+1 ms clock, 1+1/1/1+1 ms cpu, 1->1->1 MB, 1 MB goal, 1 P", ok: false},
		{line: "gc 1 @0.1s 1%: 1+1+1 ms clock", ok: false},
		{line: "gc 99999999999999999999 @0.1s 1%: 1+1+1 ms clock, 1+1/1/1+1 ms cpu, 1->1->1 MB, 1 MB goal, 1 P", ok: false},
		{line: "", ok: false},
	} {
		got, ok := ParseGCLine(tc.line)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseGCLine(%q) =\n  %+v, %t\nwant\n  %+v, %t", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzParseGCLine(f *testing.F) {
	f.Add("gc 12 @3.456s 4%: 0.021+1.2+0.015 ms clock, 0.042+0.5/1.1/0+0.030 ms cpu, 4->5->2 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P")
	f.Add("gc 1 @0.012s 2%: 0.026+0.39+0.10 ms clock, 0.21+0.12/0.33/0.62+0.80 ms cpu, 4->4->0 MB, 5 MB goal, 8 P (forced)")
	f.Add("gc 7 @1.250s 3% (checking for goroutine leaks): 0.030+2.1+0.020 ms clock, 0.060+0.4/1.9/0.1+0.040 ms cpu, 6->7->3 MB, 7 MB goal, 0 MB stacks, 1 MB globals, 2 P")
	f.Add("scvg: 0 MB released")
	f.Fuzz(func(t *testing.T, line string) {
		e, ok := ParseGCLine(line)
		if !ok {
			if e != (GCEvent{}) {
				t.Fatalf("ParseGCLine(%q) = %+v, false; want the zero event", line, e)
			}
			return
		}
		if e.N < 0 || e.Procs < 0 || e.HeapStartMiB < 0 || e.STWSweep < 0 {
			t.Fatalf("ParseGCLine(%q) = %+v: negative field", line, e)
		}
	})
}
