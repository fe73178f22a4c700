package report

import (
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

func TestStuckGroupText(t *testing.T) {
	for _, tc := range []struct {
		g    runfmt.StuckGroup
		want string
	}{
		{runfmt.StuckGroup{Count: 47, Unit: runfmt.UnitGoroutine, Wait: "sync", Blocking: "sync.(*Mutex).Lock",
			Function: "main.(*store).Put", File: "/src/store.go", Line: 88},
			"47 goroutines wait in sync.(*Mutex).Lock at store.go:88 (under main.(*store).Put)"},
		{runfmt.StuckGroup{Count: 1, Unit: runfmt.UnitGoroutine, Wait: "sync", Blocking: "sync.(*Mutex).Lock",
			Function: "main.(*store).Len", File: "/src/store.go", Line: 70, Caller: "main.(*store).Put", CallerFile: "/src/store.go", CallerLine: 91, WaitMinutes: 3},
			"1 goroutine waits in sync.(*Mutex).Lock at store.go:70 (under main.(*store).Len, called from main.(*store).Put at store.go:91), for 3 min or more"},
		{runfmt.StuckGroup{Count: 8, Unit: runfmt.UnitThread, Wait: "network", Blocking: "recvfrom", Peer: "127.0.0.1:9999",
			Function: "fetch_quote", File: "/app/server.py", Line: 31},
			"8 threads wait in recvfrom on a socket to 127.0.0.1:9999 at server.py:31 (under fetch_quote)"},
		{runfmt.StuckGroup{Count: 6, Unit: runfmt.UnitThread, Wait: "sync", Blocking: "Semaphore.acquire", Pool: true, Holders: 1,
			Function: "call_peer", File: "/app/pool.py", Line: 4},
			"pool exhausted: 6 threads wait for a slot in Semaphore.acquire at pool.py:4 (under call_peer); 1 holds one"},
		{runfmt.StuckGroup{Count: 2, Unit: runfmt.UnitThread, Wait: "running", State: "active", Function: "spin", File: "/app/a.py", Line: 3},
			"2 threads run at a.py:3 (under spin)"},
		{runfmt.StuckGroup{Count: 11, Unit: runfmt.UnitGoroutine, Wait: "network", State: "IO wait", Blocking: "net/http.(*connReader).backgroundRead"},
			"11 goroutines wait in net/http.(*connReader).backgroundRead [IO wait]"},
	} {
		if got := StuckGroupText(tc.g); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}

// stuckRun is a run whose service deadlocked: the snapshot and its
// finding, as the lab writes them.
func stuckRun() *runfmt.Run {
	st := &runfmt.Stuck{Reason: "no request finished for 1.50 s with 8 in flight", AtS: 1.6, Seconds: 0.012, InFlight: 8, Threads: 19,
		Processes: []runfmt.StuckProcess{{PID: 42, Runtime: "go", Source: runfmt.StackSourcePprof, Threads: 19, Bytes: 20 << 10, Seconds: 0.011}},
		Groups: []runfmt.StuckGroup{
			{Count: 7, Unit: runfmt.UnitGoroutine, Wait: "sync", Blocking: "sync.(*Mutex).Lock", Function: "main.(*store).Put", File: "/src/main.go", Line: 59, Text: "\ts.mu.Lock()"},
			{Count: 1, Unit: runfmt.UnitGoroutine, Wait: "sync", Blocking: "sync.(*Mutex).Lock", Function: "main.(*store).Len", File: "/src/main.go", Line: 77, Caller: "main.(*store).Put", CallerFile: "/src/main.go", CallerLine: 66},
			{Count: 1, Unit: runfmt.UnitGoroutine, Wait: "network", Blocking: "net/http.(*Server).Serve", Function: "main.serve", File: "/src/main.go", Line: 20, Idle: true},
			{Count: 10, Unit: runfmt.UnitGoroutine, Wait: "network", State: "IO wait", Blocking: "net/http.(*connReader).backgroundRead"},
		}}
	return &runfmt.Run{SchemaVersion: runfmt.SchemaVersion, Status: runfmt.StatusComplete, Stuck: st,
		Load: &runfmt.LoadResult{Requests: 19, Unfinished: 8},
		Findings: []runfmt.Finding{{Kind: runfmt.FindingStuck, Title: StuckTitle(st), Detail: StuckDetail(st), Functions: []string{"main.(*store).Put"},
			Lines: []runfmt.SourceLine{{File: "/src/main.go", Line: 59, Text: "\ts.mu.Lock()", Pct: 87.5}}}}}
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
	d := r.Findings[0].Detail
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
	if !strings.Contains(md.String(), `7 goroutines wait in sync.(\*Mutex).Lock at main.go:59`) || !strings.Contains(page.String(), "7 goroutines wait in sync.(*Mutex).Lock at main.go:59") {
		t.Errorf("markdown or report.html lacks the stuck finding:\n%s", md.String())
	}
	if v := RunVerdict(r); v.Status != runfmt.VerdictFail || !strings.HasPrefix(v.Reasons[0], "requests stopped finishing: 7 goroutines wait") {
		t.Errorf("CI verdict %+v; want fail: the service hung", v)
	}
}

// A snapshot that read nothing says so in its finding, with its notes.
func TestStuckTitleWithoutStacks(t *testing.T) {
	st := &runfmt.Stuck{Reason: "the window ended with 8 requests unfinished and 0 finished", TimedOut: true,
		Notes: []string{"the snapshot did not finish within 10s (the time limit of snapshots): what was read before is shown"}}
	if got := StuckTitle(st); got != "requests stopped finishing, and no thread's stack could be read" {
		t.Errorf("title %q", got)
	}
	if d := StuckDetail(st); !strings.Contains(d, "The window ended with 8") || !strings.Contains(d, "did not finish within 10s") {
		t.Errorf("detail %q", d)
	}
}
