package prose

import (
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
