package findings

import (
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

// A snapshot that read nothing says so in its finding, with its notes.
func TestStuckTitleWithoutStacks(t *testing.T) {
	st := &runfmt.Stuck{Kind: runfmt.StuckWindowEnded, InFlight: 8, TimedOut: true,
		Notes: []string{"the snapshot did not finish within 10s (the time limit of snapshots): what was read before is shown"}}
	f := Stuck(st)
	if got := title(f); got != "requests stopped finishing, and no thread's stack could be read" {
		t.Errorf("title %q", got)
	}
	if d := detail(f); !strings.Contains(d, "The window ended with 8") || !strings.Contains(d, "did not finish within 10s") {
		t.Errorf("detail %q", d)
	}
}

// A request whose allocation waits for the GC (on a busy machine the GC's
// mark worker can spin in runtime.suspendG for goroutines the kernel does
// not run, and no request finishes) is said to wait for it: its function
// is not the culprit, and the lever is not a lock's.
func TestStuckWaitingForGC(t *testing.T) {
	st := &runfmt.Stuck{Reason: "no request finished for 1.50 s with 4 in flight", Groups: []runfmt.StuckGroup{{
		Count: 1, Unit: runfmt.UnitGoroutine, Wait: runfmt.TimeGC, State: "semacquire", Blocking: "image/png.Encode",
		Function: "main.renderImage", File: "/src/pngencode/main.go", Line: 139,
		Caller: "main.handler.func1", CallerFile: "/src/pngencode/main.go", CallerLine: 67,
	}}}
	f := Stuck(st)
	if f.Advice != runfmt.AdviceUnstallGC || len(f.Names()) != 0 {
		t.Errorf("advice %q, names %v; want %q and no culprit", f.Advice, f.Names(), runfmt.AdviceUnstallGC)
	}
	want := "1 goroutine waits for the garbage collector in image/png.Encode at main.go:139 (under main.renderImage, called from main.handler.func1 at main.go:67)"
	if got := title(f); got != want {
		t.Errorf("title\n%q\nwant\n%q", got, want)
	}
}

// A stall whose snapshot found no goroutine on a request (the requests in
// flight have not reached the service's code: its main goroutine waits in
// a select for a signal, its listeners in accept) names no culprit and no
// lever, and says so.
func TestStuckWithNoRequestInCode(t *testing.T) {
	st := &runfmt.Stuck{Reason: "no request finished for 1.50 s with 4 in flight", Groups: []runfmt.StuckGroup{
		{Count: 1, Unit: runfmt.UnitGoroutine, Wait: runfmt.TimeSync, State: "select", Blocking: "select", Idle: true,
			Function: "perflab/testdata/services/svc.serve", File: "/src/svc/svc.go", Line: 98},
		{Count: 1, Unit: runfmt.UnitGoroutine, Wait: runfmt.TimeNetwork, State: "IO wait", Blocking: "net/http.(*Server).Serve", Idle: true,
			Function: "perflab/testdata/services/svc.serve.func1", File: "/src/svc/svc.go", Line: 94},
	}}
	f := Stuck(st)
	if f.Advice != "" || len(f.Names()) != 0 {
		t.Errorf("advice %q, names %v; want neither", f.Advice, f.Names())
	}
	if got := title(f); !strings.Contains(got, "no thread was on a request") {
		t.Errorf("title %q", got)
	}
	if d := detail(f); !strings.Contains(d, "had not reached its code") || !strings.Contains(d, "waits in select at svc.go:98") {
		t.Errorf("detail %q", d)
	}
}
