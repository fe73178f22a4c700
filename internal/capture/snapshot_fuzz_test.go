package capture

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// addSnapshotSeeds seeds f with the corpus files named and small inputs.
func addSnapshotSeeds(f *testing.F, names []string, small ...string) {
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join("testdata", "snapshot", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range small {
		f.Add([]byte(s))
	}
}

// checkSnapshot holds every parser to its bounds, and the grouping to
// counting each thread once.
func checkSnapshot(t *testing.T, s *Snapshot, in []byte) {
	if s == nil {
		t.Fatal("nil snapshot")
	}
	if len(s.Threads) > maxSnapshotThreads || s.Bytes > int64(len(in)) {
		t.Fatalf("%d threads, %d bytes of %d", len(s.Threads), s.Bytes, len(in))
	}
	for _, th := range s.Threads {
		if len(th.Frames) > maxThreadFrames {
			t.Fatalf("%d frames kept", len(th.Frames))
		}
	}
	sum := 0
	for _, g := range GroupThreads([]*Snapshot{s}, corpusUser) {
		if g.Count < 1 || len(g.Stack) > maxGroupFrames || len(g.PIDs) > maxGroupPIDs {
			t.Fatalf("group %+v", g)
		}
		sum += g.Count
	}
	if sum != len(s.Threads) {
		t.Fatalf("groups count %d threads of %d", sum, len(s.Threads))
	}
}

func FuzzParseGoroutines(f *testing.F) {
	addSnapshotSeeds(f, []string{"goroutine-deadlock.txt", "goroutine-sigquit-crash.txt", "goroutine-gcstart.txt", "goroutine-gc-sigquit.txt"},
		"goroutine 1 [chan receive, 3 minutes]:\nmain.f(...)\n\t/a.go:1 +0x1\ncreated by main.g in goroutine 2\n\t/a.go:2\n",
		"goroutine 9 gp=0x1 m=nil [running]:\n\tgoroutine running on other thread; stack unavailable\n\n",
		"goroutine 2 [select]:\n)\n\t:\n((((\n\t/x.go:99999999999999999999\n")
	f.Fuzz(func(t *testing.T, in []byte) {
		s, _ := ParseGoroutines(bytes.NewReader(in))
		checkSnapshot(t, s, in)
	})
}

func FuzzParsePySpyDump(f *testing.F) {
	addSnapshotSeeds(f, []string{"pyspy-dump.json", "pyspy-pool.json"},
		`[{"thread_id":1,"os_thread_id":2,"active":true,"frames":[{"name":"f","filename":"/a.py","line":3}]}]`,
		`[{"frames":null},{}]`, `{"not":"an array"}`, `[`)
	f.Fuzz(func(t *testing.T, in []byte) {
		s, _ := ParsePySpyDump(bytes.NewReader(in))
		checkSnapshot(t, s, in)
	})
}

func FuzzParseJcmdThreads(f *testing.F) {
	addSnapshotSeeds(f, []string{"jcmd-thread-print.txt"},
		"\"a\" #1 nid=12 waiting\n   java.lang.Thread.State: BLOCKED (on object monitor)\n\tat A.b(A.java:3)\n\t- waiting to lock <0x1> (a X)\n",
		"\"\"\" nid=0xffffffffff (\n\tat (\n\tat ()\n")
	f.Fuzz(func(t *testing.T, in []byte) {
		s, _ := ParseJcmdThreads(bytes.NewReader(in))
		checkSnapshot(t, s, in)
	})
}

func FuzzParseRbSpySnapshot(f *testing.F) {
	addSnapshotSeeds(f, []string{"rbspy-snapshot.txt"}, "a - b:1\n - :\n-  - x:y\n")
	f.Fuzz(func(t *testing.T, in []byte) {
		s, _ := ParseRbSpySnapshot(bytes.NewReader(in))
		checkSnapshot(t, s, in)
	})
}
