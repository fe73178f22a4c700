package capture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

// The corpus in testdata/snapshot was captured from real processes:
// testdata/services/deadlock after 22 puts (its goroutine profile with
// debug=2, and its SIGQUIT dump with GOTRACEBACK=crash),
// testdata/services/pyhang with its threads blocked on a peer that never
// answers (py-spy 0.4.3 dump, JSON and text), a Python program whose
// threads wait for a BoundedSemaphore(2) while two hold it, a JVM whose
// threads wait for a monitor and a socket (jcmd, JDK 17), and a Ruby
// program asleep two methods deep (rbspy 0.55 snapshot, Ruby 3.1), and a
// Go program whose goroutines allocate 8 MiB each under GOGC=1 (its
// goroutine profile with debug=2, and its SIGQUIT dump with
// GOTRACEBACK=system) while some wait for the GC in semacquire.

// corpusUser is the service's code in the corpus: the Go services' main
// package, the Python scripts, the Java class.
func corpusUser(fn, file string) bool {
	return strings.HasPrefix(fn, "main.") || strings.HasPrefix(fn, "Hang.") ||
		strings.HasSuffix(file, "/server.py") || strings.HasSuffix(file, "/pool.py")
}

func openCorpus(t testing.TB, name string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "snapshot", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// findGroup returns the group waiting in fn at line, or fails.
func findGroup(t *testing.T, groups []runfmt.StuckGroup, fn string, line int) runfmt.StuckGroup {
	t.Helper()
	for _, g := range groups {
		if g.Function == fn && g.Line == line {
			return g
		}
	}
	t.Fatalf("no group in %s at line %d: %+v", fn, line, groups)
	return runfmt.StuckGroup{}
}

func TestParseGoroutinesDeadlock(t *testing.T) {
	s, err := ParseGoroutines(openCorpus(t, "goroutine-deadlock.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Threads) != 18 || s.Truncated || s.Bytes != 19106 {
		t.Errorf("%d goroutines, %d bytes, truncated %v; want 18, 19106, false", len(s.Threads), s.Bytes, s.Truncated)
	}
	groups := GroupThreads([]*Snapshot{s}, corpusUser)
	top := groups[0]
	want := runfmt.StuckGroup{Count: 10, Unit: runfmt.UnitGoroutine, Wait: "sync", State: "sync.Mutex.Lock",
		Blocking: "sync.(*Mutex).Lock", Function: "main.(*store).Put", Line: 59, Caller: "main.handler.func1"}
	if top.Count != want.Count || top.Unit != want.Unit || top.Wait != want.Wait || top.State != want.State ||
		top.Blocking != want.Blocking || top.Function != want.Function || top.Line != want.Line || top.Caller != want.Caller {
		t.Errorf("biggest group\n%+v\nwant\n%+v", top, want)
	}
	if !strings.HasSuffix(top.File, "/deadlock/main.go") || top.Source != runfmt.StackSourcePprof {
		t.Errorf("file %q, source %q", top.File, top.Source)
	}
	self := findGroup(t, groups, "main.(*store).Len", 77)
	if self.Count != 1 || self.Caller != "main.(*store).Put" || self.CallerLine != 66 || self.Blocking != "sync.(*Mutex).Lock" {
		t.Errorf("the goroutine that deadlocked on itself: %+v", self)
	}
	sum := 0
	for _, g := range groups {
		sum += g.Count
	}
	if sum != len(s.Threads) {
		t.Errorf("groups count %d goroutines of %d", sum, len(s.Threads))
	}
}

// A SIGQUIT dump with GOTRACEBACK=crash shows the runtime's frames and
// goroutines, "gp=… m=…" in the headers and registers after them: the
// same wait is found.
func TestParseGoroutinesSigquitCrash(t *testing.T) {
	s, err := ParseGoroutines(openCorpus(t, "goroutine-sigquit-crash.txt"))
	if err != nil {
		t.Fatal(err)
	}
	groups := GroupThreads([]*Snapshot{s}, corpusUser)
	put := findGroup(t, groups, "main.(*store).Put", 59)
	if put.Blocking != "sync.(*Mutex).Lock" || put.Count != 2 {
		t.Errorf("Put group %+v; want 2 in sync.(*Mutex).Lock", put)
	}
	for _, g := range groups {
		if strings.HasPrefix(g.Blocking, "runtime.") {
			t.Errorf("group named after the runtime's entry %q: %+v", g.Blocking, g)
		}
	}
}

func TestGoroutineHeaders(t *testing.T) {
	for _, tc := range []struct {
		dump           string
		id             int64
		state          string
		minutes, nfunc int
		created        string
	}{
		{"goroutine 7 [chan receive, 12 minutes]:\nmain.worker(0xc000010000)\n\t/src/w.go:9 +0x25\ncreated by main.start in goroutine 1\n\t/src/w.go:4 +0x3b\n", 7, "chan receive", 12, 1, "main.start"},
		{"goroutine 18 gp=0xc000102a80 m=nil [sync.Mutex.Lock, 1 minute, locked to thread]:\nmain.f()\n\t/src/f.go:3 +0x1 fp=0x1 sp=0x2 pc=0x3\n", 18, "sync.Mutex.Lock", 1, 1, ""},
		{"goroutine 1 [running]:\n\tgoroutine running on other thread; stack unavailable\n", 1, "running", 0, 0, ""},
		{"goroutine 3 [select]:\nmain.(*T[...]).Run(...)\n\t/src/t.go:30\n...additional frames elided...\ncreated by net/http.(*Server).Serve\n\t/go/src/net/http/server.go:3464 +0x485\n", 3, "select", 0, 1, "net/http.(*Server).Serve"},
	} {
		s, err := ParseGoroutines(strings.NewReader(tc.dump))
		if err != nil {
			t.Fatalf("%q: %v", tc.dump, err)
		}
		g := s.Threads[0]
		created := ""
		if g.CreatedBy != nil {
			created = g.CreatedBy.Function
		}
		if g.ID != tc.id || g.State != tc.state || g.WaitMinutes != tc.minutes || len(g.Frames) != tc.nfunc || created != tc.created {
			t.Errorf("%q:\n got %d %q %d min, %d frames, created by %q\nwant %d %q %d min, %d frames, created by %q",
				tc.dump, g.ID, g.State, g.WaitMinutes, len(g.Frames), created, tc.id, tc.state, tc.minutes, tc.nfunc, tc.created)
		}
	}
	if f := mustParse(t, "goroutine 3 [select]:\nmain.(*T[...]).Run(...)\n\t/src/t.go:30\n").Threads[0].Frames[0]; f.Function != "main.(*T[...]).Run" || f.Line != 30 {
		t.Errorf("frame %+v; want main.(*T[...]).Run at line 30", f)
	}
}

func mustParse(t *testing.T, dump string) *Snapshot {
	t.Helper()
	s, err := ParseGoroutines(strings.NewReader(dump))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParsePySpyDump(t *testing.T) {
	s, err := ParsePySpyDump(openCorpus(t, "pyspy-dump.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Threads) != 12 {
		t.Fatalf("%d threads; want 12", len(s.Threads))
	}
	if th := s.Threads[0]; th.TID != 21683 || th.State != "idle" || th.Frames[0].Function != "fetch_quote" {
		t.Errorf("first thread %+v; want os thread 21683, idle, in fetch_quote", th)
	}
	g := GroupThreads([]*Snapshot{s}, corpusUser)[0]
	if g.Count != 11 || g.Function != "fetch_quote" || g.Line != 32 || g.Caller != "Handler.do_GET" || g.Unit != runfmt.UnitThread {
		t.Errorf("biggest group %+v; want 11 threads in fetch_quote at line 32", g)
	}
}

// A goroutine in semacquire whose make waits for the GC (to start a
// cycle, or to end its mark: the runtime's own semaphores) waits for the
// GC, not for a lock of the service's: in a debug=2 dump, which hides the
// runtime's frames, and in a SIGQUIT dump, which shows them.
func TestSemacquireUnderAllocationWaitsForGC(t *testing.T) {
	for _, name := range []string{"goroutine-gcstart.txt", "goroutine-gc-sigquit.txt"} {
		s, err := ParseGoroutines(openCorpus(t, name))
		if err != nil {
			t.Fatal(err)
		}
		waiting := 0
		for _, g := range GroupThreads([]*Snapshot{s}, corpusUser) {
			if g.State != "semacquire" {
				continue
			}
			waiting += g.Count
			if g.Wait != runfmt.TimeGC || g.Function != "main.fill" || g.Line != 15 {
				t.Errorf("%s: group in semacquire %+v; want main.fill:15 waiting for the GC", name, g)
			}
		}
		if waiting == 0 {
			t.Errorf("%s: no goroutine in semacquire", name)
		}
	}
	s, err := ParseGoroutines(openCorpus(t, "goroutine-deadlock.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range GroupThreads([]*Snapshot{s}, corpusUser) {
		if g.Wait == runfmt.TimeGC && g.Located() {
			t.Errorf("deadlock: a group in the service's code waits for the GC: %+v", g)
		}
	}
}

// A Go server's main goroutine, parked in a select on a signal and its
// listeners' errors, waits for the program's end, not on a request: its
// group waits for work, in a debug=2 dump and in a SIGQUIT dump (which
// shows runtime.main past main.main).
func TestMainGoroutineWaitsForExit(t *testing.T) {
	for _, name := range []string{"goroutine-deadlock.txt", "goroutine-sigquit-crash.txt"} {
		s, err := ParseGoroutines(openCorpus(t, name))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, g := range GroupThreads([]*Snapshot{s}, corpusUser) {
			if g.Function == "main.main" && g.State == "select" {
				found = true
				if !g.Idle {
					t.Errorf("%s: the main goroutine's select is not a wait for work: %+v", name, g)
				}
			}
			if g.Idle && strings.HasPrefix(g.Blocking, "sync.") {
				t.Errorf("%s: a lock's wait taken for a wait for work: %+v", name, g)
			}
		}
		if !found {
			t.Errorf("%s: no group of the main goroutine in select", name)
		}
	}
}

// Six threads wait for a BoundedSemaphore(2) that two threads hold while
// they wait on a peer: the pool is exhausted.
func TestPoolExhausted(t *testing.T) {
	s, err := ParsePySpyDump(openCorpus(t, "pyspy-pool.json"))
	if err != nil {
		t.Fatal(err)
	}
	groups := GroupThreads([]*Snapshot{s}, corpusUser)
	g := groups[0]
	if !g.Pool || g.Count != 6 || g.Holders != 2 || g.Blocking != "Semaphore.acquire" || g.Function != "call_peer" {
		t.Errorf("biggest group %+v; want 6 threads waiting in Semaphore.acquire in call_peer, 2 holders", g)
	}
	if h := findGroup(t, groups, "call_peer", 6); h.Pool || h.Count != 2 {
		t.Errorf("holders' group %+v; want 2, not waiting for the pool", h)
	}
}

func TestParseJcmdThreads(t *testing.T) {
	s, err := ParseJcmdThreads(openCorpus(t, "jcmd-thread-print.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Threads) != 25 {
		t.Errorf("%d threads; want 25", len(s.Threads))
	}
	groups := GroupThreads([]*Snapshot{s}, corpusUser)
	g := groups[0]
	if g.Count != 3 || g.Function != "Hang.take" || g.File != "Hang.java" || g.Line != 6 || g.Wait != "sync" ||
		g.Blocking != "a java.lang.Object" || g.State != "BLOCKED (on object monitor)" {
		t.Errorf("biggest group %+v; want 3 threads BLOCKED on a java.lang.Object in Hang.take at Hang.java:6", g)
	}
	r := findGroup(t, groups, "Hang.readPeer", 7)
	if r.Blocking != "java.net.Socket$SocketInputStream.read" {
		t.Errorf("reader %+v; want it in java.net.Socket$SocketInputStream.read", r)
	}
	var tids []int
	for _, th := range s.Threads {
		if strings.HasPrefix(th.Name, "worker-") {
			tids = append(tids, th.TID)
		}
	}
	if len(tids) != 3 || tids[0] != 0x5a36 {
		t.Errorf("workers' native IDs %v; want 3 from 0x5a36", tids)
	}
	if d := mustJcmd(t, "\"w\" #5 prio=5 nid=23094 waiting\n   java.lang.Thread.State: WAITING (parking)\n\tat jdk.internal.misc.Unsafe.park(java.base@21/Native Method)\n\t- parking to wait for  <0x1> (a java.util.concurrent.Semaphore$NonfairSync)\n\tat app.Pool.get(Pool.java:12)\n"); d.TID != 23094 || d.WaitsOn != "java.util.concurrent.Semaphore$NonfairSync" {
		t.Errorf("JDK 21 header with a decimal nid: %+v", d)
	}
}

func mustJcmd(t *testing.T, dump string) Thread {
	t.Helper()
	s, err := ParseJcmdThreads(strings.NewReader(dump))
	if err != nil {
		t.Fatal(err)
	}
	return s.Threads[0]
}

func TestParseRbSpySnapshot(t *testing.T) {
	s, err := ParseRbSpySnapshot(openCorpus(t, "rbspy-snapshot.txt"))
	if err != nil {
		t.Fatal(err)
	}
	fr := s.Threads[0].Frames
	if len(fr) != 4 || fr[1].Function != "inner" || fr[1].Line != 3 || fr[3].Function != "<main>" || fr[0].File != "" {
		t.Errorf("frames %+v; want (c function), inner, outer, <main>, innermost first", fr)
	}
}

// A tool's output without end, or with a line without end, is read up
// to its bound: the snapshot says it was cut and keeps what came before.
// The bounds are lowered for the quick tests (32 MiB take a minute and a
// half under the race detector) and kept for the others.
func TestSnapshotBounds(t *testing.T) {
	l := limits{bytes: 1 << 20, threads: 1000}
	if !testing.Short() {
		l = defaultLimits
	}
	endless := &repeatReader{chunk: []byte("goroutine 5 [select]:\nmain.wait()\n\t/src/w.go:7 +0x1\n\n")}
	s, err := parseGoroutines(endless, l)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Truncated || s.Bytes > l.bytes || len(s.Threads) != l.threads || endless.n > l.bytes+1 {
		t.Errorf("endless dump: truncated %v, %d bytes, %d goroutines, %d read; bounds %+v", s.Truncated, s.Bytes, len(s.Threads), endless.n, l)
	}
	long := "goroutine 1 [select]:\nmain." + strings.Repeat("x", 1<<20) + "()\n\t/src/a.go:1\nmain.b()\n\t/src/b.go:2\n\n"
	s, err = ParseGoroutines(strings.NewReader(long))
	if err != nil {
		t.Fatal(err)
	}
	if fr := s.Threads[0].Frames; len(fr) != 1 || fr[0].Function != "main.b" {
		t.Errorf("a 1 MiB line is cut and the rest read: frames %+v", fr)
	}
	deep := "goroutine 1 [select]:\n" + strings.Repeat("main.f()\n\t/src/f.go:1\n", 1000)
	if n := len(mustParse(t, deep).Threads[0].Frames); n != maxThreadFrames {
		t.Errorf("%d frames kept of 1000; want %d", n, maxThreadFrames)
	}
	big := &repeatReader{chunk: []byte(`{"thread_id":1,"frames":[]},`), prefix: []byte("[")}
	if s, err := parsePySpyDump(big, l); err != nil || !s.Truncated || len(s.Threads) != l.threads || big.n > l.bytes+1 {
		t.Errorf("endless py-spy JSON: %v, truncated %v, %d threads, %d read", err, s.Truncated, len(s.Threads), big.n)
	}
	jvm := &repeatReader{chunk: []byte("\"t\" #1 nid=0x1 runnable\n\tat A.b(A.java:1)\n\n")}
	if s, err := parseJcmdThreads(jvm, l); err != nil || !s.Truncated || len(s.Threads) != l.threads {
		t.Errorf("endless jcmd output: %v, truncated %v, %d threads", err, s.Truncated, len(s.Threads))
	}
	rb := &repeatReader{chunk: []byte("m - a.rb:1\n")}
	if s, err := parseRbSpySnapshot(rb, l); err != nil || !s.Truncated || len(s.Threads[0].Frames) != maxThreadFrames {
		t.Errorf("endless rbspy output: %v, truncated %v", err, s.Truncated)
	}
}

// repeatReader yields prefix, then chunk for ever, counting what it gave.
type repeatReader struct {
	prefix, chunk []byte
	n             int64
	off           int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	if r.n == 0 && len(r.prefix) > 0 {
		n = copy(p, r.prefix)
	}
	for n < len(p) {
		c := copy(p[n:], r.chunk[r.off:])
		r.off = (r.off + c) % len(r.chunk)
		n += c
	}
	r.n += int64(n)
	return n, nil
}
