package findings

import (
	"strings"
	"testing"

	"perflab/internal/prose"
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

// throttledBatch is a Go program of 8 Ps that a budget of half a core
// throttled in 60% of its periods.
func throttledBatch() *runfmt.Batch {
	b := batchOf(4, 2, 0.4, 8)
	b.Cores.BudgetCores, b.ThrottledPct, b.ThrottledS = 0.5, 60, 2.1
	return b
}

// TestBatchFindings: serial work is said when the program used about one
// core of several and was not starved; a program starved by the machine
// is said to be so instead; the budget when it throttled.
func TestBatchFindings(t *testing.T) {
	for _, c := range []struct {
		name  string
		b     *runfmt.Batch
		kinds []runfmt.FindingKind
		title string
	}{
		{"serial", batchOf(3, 2.9, 0.6, 2), []runfmt.FindingKind{runfmt.FindingSerial}, "serial: 0.967 of 2 cores busy"},
		{"parallel", batchOf(2, 3.8, 0.3, 2), nil, ""},
		{"one core", batchOf(3, 2.9, 0.1, 1), nil, ""},
		{"asleep", batchOf(3, 0.3, 0.1, 8), nil, ""},
		{"starved", batchOf(6, 2.7, 9, 2), []runfmt.FindingKind{runfmt.FindingCPUContention}, "waited for a CPU: 1.5 threads at a time on average"},
		{"throttled", throttledBatch(), []runfmt.FindingKind{runfmt.FindingCPUBound}, "budget: --cpus 0.5 throttled it in 60% of its periods"},
	} {
		fs := BatchFindings(c.b, freqHot)
		var kinds []runfmt.FindingKind
		for _, f := range fs {
			kinds = append(kinds, f.Kind)
		}
		if len(kinds) != len(c.kinds) || len(kinds) > 0 && (kinds[0] != c.kinds[0] || prose.Wording(&fs[0]).Title.Text() != c.title) {
			t.Errorf("%s: findings %+v; want %v, %q", c.name, fs, c.kinds, c.title)
		}
	}
	f := BatchFindings(batchOf(3, 2.9, 0.6, 8), freqHot)[0]
	detail := prose.Wording(&f).Detail.Text()
	for _, want := range []string{"of the 8 it could use (host 8, cpuset 8, GOMAXPROCS 8)", "runtime.GOMAXPROCS(0) goroutines",
		"main.freq does 70% of its CPU (most in encoding/xml.Unmarshal under it)"} {
		if !strings.Contains(detail, want) {
			t.Errorf("serial detail %q lacks %q", detail, want)
		}
	}
	if names := f.Names(); len(names) == 0 || names[0] != "main.freq" {
		t.Errorf("serial finding names %v; want main.freq first", names)
	}
}

// TestBatchWordsApart: a batch program's wait for a CPU and its budget
// read as a program's, a service's findings of the same kinds as a
// service's.
func TestBatchWordsApart(t *testing.T) {
	budget := BatchFindings(throttledBatch(), freqHot)[0]
	if d := prose.Wording(&budget).Detail.Text(); !strings.Contains(d, "it could run faster with a larger --cpus, or waste less of its quota with GOMAXPROCS=1 (it runs Go code on 8 threads for 0.5 cores).") {
		t.Errorf("budget detail %q", d)
	}
	starved := BatchFindings(batchOf(6, 2.7, 9, 2), freqHot)[0]
	if d := prose.Wording(&starved).Detail.Text(); !strings.Contains(d, "Its threads waited 9.00 s for a CPU (ebpf) over its 6.00 s, against 2.70 s on one") ||
		!strings.HasSuffix(d, "or a cgroup that the scheduler serves first.") {
		t.Errorf("starved detail %q", d)
	}
	for _, f := range Findings(contentionInput(t)) {
		if f.Kind == runfmt.FindingCPUContention && strings.Contains(prose.Wording(&f).Title.Text(), "threads at a time") {
			t.Errorf("a service's contention reads as a program's: %q", prose.Wording(&f).Title.Text())
		}
	}
	for _, f := range Findings(budgetInput(t)) {
		if f.Kind == runfmt.FindingCPUBound && !strings.HasPrefix(prose.Wording(&f).Title.Text(), "CPU-bound:") {
			t.Errorf("a service's CPU-bound finding reads %q", prose.Wording(&f).Title.Text())
		}
	}
}
