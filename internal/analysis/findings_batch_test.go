package analysis

import (
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

func batchOf(wall, cpu, runnable float64, usable int) *runfmt.Batch {
	return &runfmt.Batch{
		WallS: wall, CPUS: cpu, CoresMean: cpu / wall, RunnableS: runnable, RunnableSource: "ebpf",
		Cores: runfmt.BatchCores{Host: usable, CPUSet: usable, GOMAXPROCS: usable, Usable: usable, UsableBy: "host"},
	}
}

var freqHot = []runfmt.HotFunc{
	{Function: "encoding/xml.(*Decoder).rawToken", UserCode: false, CumPct: 40},
	{Function: "main.freq", UserCode: true, CumPct: 70, AttributedSample: "encoding/xml.Unmarshal"},
}

// TestBatchFindings: serial work is said when the program used about one
// core of several and was not starved; a program starved by the machine
// is said to be so instead; the budget when it throttled.
func TestBatchFindings(t *testing.T) {
	throttled := batchOf(4, 2, 0.4, 2)
	throttled.Cores.BudgetCores, throttled.ThrottledPct, throttled.ThrottledS = 0.5, 60, 2.1
	for _, c := range []struct {
		name  string
		b     *runfmt.Batch
		kinds []runfmt.FindingKind
		title string
	}{
		{"serial", batchOf(3, 2.9, 0.6, 2), []runfmt.FindingKind{runfmt.FindingSerial}, "serial: 1.0 of 2 cores busy"},
		{"parallel", batchOf(2, 3.8, 0.3, 2), nil, ""},
		{"one core", batchOf(3, 2.9, 0.1, 1), nil, ""},
		{"asleep", batchOf(3, 0.3, 0.1, 8), nil, ""},
		{"starved", batchOf(6, 2.7, 9, 2), []runfmt.FindingKind{runfmt.FindingCPUContention}, "waited for a CPU: 1.5 threads at a time on average"},
		{"throttled", throttled, []runfmt.FindingKind{runfmt.FindingCPUBound}, "budget: --cpus 0.5 throttled it in 60% of its periods"},
	} {
		fs := BatchFindings(c.b, freqHot)
		var kinds []runfmt.FindingKind
		for _, f := range fs {
			kinds = append(kinds, f.Kind)
		}
		if len(kinds) != len(c.kinds) || len(kinds) > 0 && (kinds[0] != c.kinds[0] || fs[0].Title != c.title) {
			t.Errorf("%s: findings %+v; want %v, %q", c.name, fs, c.kinds, c.title)
		}
	}
	f := BatchFindings(batchOf(3, 2.9, 0.6, 8), freqHot)[0]
	for _, want := range []string{"of the 8 it could use (host 8, cpuset 8, GOMAXPROCS 8)", "runtime.GOMAXPROCS(0) goroutines",
		"main.freq does 70% of its CPU (most in encoding/xml.Unmarshal under it)"} {
		if !strings.Contains(f.Detail, want) {
			t.Errorf("serial detail %q lacks %q", f.Detail, want)
		}
	}
	if len(f.Functions) != 1 || f.Functions[0] != "main.freq" {
		t.Errorf("serial finding names %v; want main.freq", f.Functions)
	}
}
