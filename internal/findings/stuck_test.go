package findings

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

// A request whose allocation waits for the GC (beside two spinners the
// GC's mark worker spun in runtime.suspendG for goroutines the kernel did
// not run, and no request finished for 1.7 s) is said to wait for it: its
// function is not the culprit, and the lever is not a lock's.
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

// A stall whose snapshot found no goroutine on a request (beside two
// spinners, the 4 requests in flight had not reached the service's code:
// its main goroutine waited in a select for a signal, its listeners in
// accept) names no culprit and no lever, and says so.
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
