package report

import (
	"strings"
	"testing"

	"perflab/internal/findings"
	"perflab/internal/prose"
	"perflab/internal/runfmt"
)

// stuckRun is a run whose service deadlocked: the snapshot and its
// finding, as the lab writes them.
func stuckRun() *runfmt.Run {
	st := &runfmt.Stuck{Kind: runfmt.StuckNoRequestFinished, StalledS: 1.5, AtS: 1.6, Seconds: 0.012, InFlight: 8, Threads: 19,
		Processes: []runfmt.StuckProcess{{PID: 42, Runtime: "go", Source: runfmt.StackSourcePprof, Threads: 19, Bytes: 20 << 10, Seconds: 0.011}},
		Groups: []runfmt.StuckGroup{
			{Count: 7, Unit: runfmt.UnitGoroutine, Wait: "sync", Blocking: "sync.(*Mutex).Lock", Function: "main.(*store).Put", File: "/src/main.go", Line: 59, Text: "\ts.mu.Lock()"},
			{Count: 1, Unit: runfmt.UnitGoroutine, Wait: "sync", Blocking: "sync.(*Mutex).Lock", Function: "main.(*store).Len", File: "/src/main.go", Line: 77, Caller: "main.(*store).Put", CallerFile: "/src/main.go", CallerLine: 66},
			{Count: 1, Unit: runfmt.UnitGoroutine, Wait: "network", Blocking: "net/http.(*Server).Serve", Function: "main.serve", File: "/src/main.go", Line: 20, Idle: true},
			{Count: 10, Unit: runfmt.UnitGoroutine, Wait: "network", State: "IO wait", Blocking: "net/http.(*connReader).backgroundRead"},
		}}
	return &runfmt.Run{SchemaVersion: runfmt.SchemaVersion, Status: runfmt.StatusComplete, Stuck: st,
		Load:     &runfmt.LoadResult{Requests: 19, Unfinished: 8},
		Findings: []runfmt.Finding{stuckFinding(st)}}
}

// stuckFinding is the finding the lab writes for st.
func stuckFinding(st *runfmt.Stuck) runfmt.Finding {
	f := findings.Stuck(st)
	f.Lines = []runfmt.SourceLine{{File: "/src/main.go", Line: 59, Text: "\ts.mu.Lock()", Pct: 87.5}}
	return f
}

func TestStuckVerdict(t *testing.T) {
	r := stuckRun()
	var text strings.Builder
	if err := WriteVerdict(&text, r, "dir"); err != nil {
		t.Fatal(err)
	}
	v := text.String()
	for _, want := range []string{
		"Stuck: no request finished for 1.50 s with 8 in flight; every thread's stack at 1.60 s into the window (19 goroutines, read in 12.00 ms):",
		"  process 42 (go): pprof-goroutine, 19 goroutines, 20.0 KiB, 11.00 ms\n",
		"  7 goroutines wait in sync.(*Mutex).Lock at main.go:59 (under main.(*store).Put)\n        s.mu.Lock()\n",
		"  1 goroutine waits in sync.(*Mutex).Lock at main.go:77 (under main.(*store).Len, called from main.(*store).Put at main.go:66)\n",
		"  ... 2 more groups (11 goroutines) in run.json\n",
		"1. [stuck] 7 goroutines wait in sync.(*Mutex).Lock at main.go:59 (under main.(*store).Put)",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("the verdict lacks %q:\n%s", want, v)
		}
	}
	d := prose.Wording(&r.Findings[0]).Detail.Text()
	if !strings.HasPrefix(d, "No request finished for 1.50 s with 8 in flight. Also: 1 goroutine waits in sync.(*Mutex).Lock at main.go:77") ||
		strings.Contains(d, "Serve") || !strings.Contains(d, "A lock or channel nobody releases") {
		t.Errorf("detail %q: want the reason, the related group (not the accept loop) and the lever", d)
	}
	var md, page strings.Builder
	if err := WriteRunMarkdown(&md, r, "dir", MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := writeHTML(&page, r, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "7 goroutines wait in `sync.(*Mutex).Lock` at `main.go:59`") || !strings.Contains(page.String(), `<span class="fig">7</span> goroutines wait in <code>sync.(*Mutex).Lock</code> at <code>main.go:59</code>`) {
		t.Errorf("markdown or report.html lacks the stuck finding:\n%s", md.String())
	}
	if v := RunVerdict(r); v.Status != runfmt.VerdictFail || !strings.HasPrefix(v.Reasons[0], "requests stopped finishing: 7 goroutines wait") {
		t.Errorf("CI verdict %+v; want fail: the service hung", v)
	}
}
