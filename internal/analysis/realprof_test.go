package analysis

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/pprof/profile"
)

// The planted functions below are real work with a known culprit each; the
// tests profile them with runtime/pprof and check that the analyses name
// them, with the standard-library function that does the work attributed.

type bigStruct struct {
	ID     int
	Name   string
	Tags   []string
	Attrs  map[string]int
	Nested struct {
		A, B float64
		C    []int
	}
}

var sink int

// The work is a fixed number of iterations, not a duration, so the planted
// shares of CPU hold on a loaded machine too (about 30% formatting, 25%
// ToLower, 45% PNG; roughly 1s of CPU on an idle machine).
const (
	formatIters = 600000
	lowerIters  = 110000
	pngIters    = 780
)

//go:noinline
func plantedFormat(n int) {
	v := bigStruct{ID: 7, Name: "widget", Tags: []string{"a", "b", "c"}, Attrs: map[string]int{"x": 1, "y": 2}}
	v.Nested.C = []int{1, 2, 3, 4, 5}
	for i := 0; i < n; i++ {
		sink += len(fmt.Sprintf("%v", v))
	}
}

//go:noinline
func plantedLower(n int) {
	s := strings.Repeat("The Quick Brown Fox Jumps Over The Lazy Dog ", 40)
	for i := 0; i < n; i++ {
		sink += len(strings.ToLower(s))
	}
}

//go:noinline
func plantedPNG(n int) {
	img := image.NewRGBA(image.Rect(0, 0, 96, 96))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	img.Set(3, 3, color.White)
	var buf bytes.Buffer
	for i := 0; i < n; i++ {
		buf.Reset()
		if err := png.Encode(&buf, img); err != nil {
			panic(err)
		}
		sink += buf.Len()
	}
}

// plantedParse is an allocation-heavy parser: split, convert, map.
//
//go:noinline
func plantedParse(lines []string) map[string][]int {
	out := map[string][]int{}
	for _, ln := range lines {
		fields := strings.Split(ln, ",")
		for _, f := range fields[1:] {
			n, _ := strconv.Atoi(strings.TrimSpace(f))
			out[strings.ToUpper(fields[0])] = append(out[strings.ToUpper(fields[0])], n)
		}
	}
	return out
}

var (
	realOnce sync.Once
	realCPU  *profile.Profile
	realErr  error
)

// realCPUProfile profiles the three planted CPU costs.
func realCPUProfile(t testing.TB) *profile.Profile {
	t.Helper()
	if raceEnabled {
		t.Skip("the race detector's instrumentation distorts the planted CPU shares")
	}
	realOnce.Do(func() {
		var buf bytes.Buffer
		if realErr = pprof.StartCPUProfile(&buf); realErr != nil {
			return
		}
		plantedFormat(formatIters)
		plantedLower(lowerIters)
		plantedPNG(pngIters)
		pprof.StopCPUProfile()
		realCPU, realErr = profile.Parse(&buf)
	})
	if realErr != nil {
		t.Skipf("CPU profiling unavailable: %v", realErr)
	}
	if len(realCPU.Sample) < 20 {
		// The work is a fixed amount of CPU (about a second: 100 samples at
		// 100 Hz) however busy the machine: a profile this thin lost its
		// signals.
		t.Fatalf("CPU profile has only %d samples for about a second of CPU: the profiler lost its signals", len(realCPU.Sample))
	}
	return realCPU
}

// allocsNow snapshots the cumulative allocation profile.
func allocsNow(t testing.TB) *profile.Profile {
	t.Helper()
	runtime.GC()
	var buf bytes.Buffer
	if err := pprof.Lookup("allocs").WriteTo(&buf, 0); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// realAllocProfile records the allocations of plantedParse with every
// allocation sampled: the difference of two snapshots of the cumulative
// allocs profile, as `go tool pprof -diff_base` computes it.
func realAllocProfile(t testing.TB) *profile.Profile {
	t.Helper()
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = old }()
	var lines []string
	for i := 0; i < 200; i++ {
		lines = append(lines, fmt.Sprintf("key%d, %d, %d, %d, %d", i%17, i, i*2, i*3, i*4))
	}
	base := allocsNow(t)
	for i := 0; i < 50; i++ {
		sink += len(plantedParse(lines))
	}
	after := allocsNow(t)
	base.Scale(-1)
	p, err := profile.Merge([]*profile.Profile{after, base})
	if err != nil {
		t.Fatal(err)
	}
	// The snapshots' own decoding allocates after each snapshot is taken;
	// leave it out of the window.
	p.FilterSamplesByName(nil, regexp.MustCompile(`allocsNow`), nil, nil)
	return p
}

const pkgPath = "perflab/internal/analysis."

func TestTopRealProfile(t *testing.T) {
	p := realCPUProfile(t)
	tb, err := Top(p, TopOptions{User: true, Requests: 100})
	if err != nil {
		t.Fatal(err)
	}
	rows := rowsByName(tb)
	for _, fn := range []string{"plantedFormat", "plantedLower", "plantedPNG"} {
		r, ok := rows[pkgPath+fn]
		if !ok {
			t.Errorf("Top(User) lacks %s; rows %v", fn, tb.Rows)
			continue
		}
		if !r.User || r.FlatPct < 10 || r.Attributed < r.Flat/2 {
			t.Errorf("Top(User) %s = %+v; want user code with >10%% of CPU, mostly attributed", fn, r)
		}
	}
}

func TestHotRealProfile(t *testing.T) {
	hot := Hot(realCPUProfile(t), 100, 5)
	from := map[string]string{}
	for _, h := range hot {
		if h.UserCode {
			from[h.Function] = h.AttributedSample
		}
	}
	for fn, want := range map[string]string{"plantedFormat": "fmt.Sprintf", "plantedLower": "strings.ToLower", "plantedPNG": "image/png.Encode"} {
		if got, ok := from[pkgPath+fn]; !ok || got != want {
			t.Errorf("Hot: %s attributed_from = %q (listed %v), want %q; hot = %+v", fn, got, ok, want, hot)
		}
	}
	if hot[0].CPUUsPerRequest < 0 || hot[0].AttributedUsReq <= 0 {
		t.Errorf("Hot[0] per-request values = %+v", hot[0])
	}
	var std bool
	for _, h := range hot {
		std = std || !h.UserCode
	}
	if !std {
		t.Error("Hot lists no std/runtime rows")
	}
}

func TestAllocTopRealProfile(t *testing.T) {
	allocs := AllocTop(realAllocProfile(t), 50, 5)
	if len(allocs) == 0 || allocs[0].Function != pkgPath+"plantedParse" || !allocs[0].UserCode {
		t.Fatalf("AllocTop first row = %+v, want plantedParse", allocs)
	}
	// 50 parses of 200 lines: each line splits into 5 strings, upper-cases
	// the key twice and grows slices; at least ~4 objects a line.
	if a := allocs[0]; a.BytesPerRequest < 10000 || a.ObjectsPerRequest < 800 {
		t.Errorf("plantedParse allocations per request = %.0f B, %.0f objects; want >= 10000 B, 800 objects", a.BytesPerRequest, a.ObjectsPerRequest)
	}
}
