package capture

import (
	"bytes"
	"compress/gzip"
	"io"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

// realProfiles captures this process's profiles: a short CPU profile and
// the heap, allocs, goroutine and mutex profiles, gzipped, plus the heap
// profile uncompressed.
func realProfiles(tb testing.TB) map[string][]byte {
	tb.Helper()
	out := map[string][]byte{}
	var cpu bytes.Buffer
	if err := pprof.StartCPUProfile(&cpu); err == nil {
		burnCPU(100 * time.Millisecond)
		pprof.StopCPUProfile()
		out["cpu"] = cpu.Bytes()
	}
	for _, name := range []string{"heap", "allocs", "goroutine", "mutex"} {
		var b bytes.Buffer
		if err := pprof.Lookup(name).WriteTo(&b, 0); err != nil {
			tb.Fatal(err)
		}
		out[name] = b.Bytes()
	}
	zr, err := gzip.NewReader(bytes.NewReader(out["heap"]))
	if err != nil {
		tb.Fatal(err)
	}
	out["heap-uncompressed"], _ = io.ReadAll(zr)
	return out
}

func TestDecode(t *testing.T) {
	for name, b := range realProfiles(t) {
		if _, err := Decode(b); err != nil {
			t.Errorf("Decode(real %s profile): %v", name, err)
		}
	}
	heap := realProfiles(t)["heap"]
	for _, tc := range []struct {
		data []byte
		want string
	}{
		{nil, "empty data"},
		{heap[:len(heap)-10], "truncated or corrupt gzip"},
		{[]byte("<html>nope</html>"), "not a pprof profile"},
		{[]byte{0x0a, 0xff, 0xff}, "not a pprof profile"},
	} {
		_, err := Decode(tc.data)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Decode(%q) = %v, want an error with %q", snippet(tc.data, 20), err, tc.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, b := range realProfiles(f) {
		f.Add(b)
	}
	f.Add([]byte{0x1f, 0x8b})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode(data)
		if err != nil {
			return
		}
		if err := p.CheckValid(); err != nil {
			t.Fatalf("Decode returned an invalid profile: %v", err)
		}
	})
}
