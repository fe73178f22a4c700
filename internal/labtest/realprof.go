package labtest

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

	"perflab/internal/runfmt"
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

// Sink keeps the planted work from being optimised away.
var Sink int

// The work is a fixed number of iterations, not a duration, and each
// planted cost is about a third of the CPU (roughly 1 s in all on an idle
// machine), so that every share stays well above the findings' 15%
// threshold. The shares still move with the machine's other work: beside
// two CPU-bound processes PNG's fell from 23% to 15% of the CPU, at that
// threshold, when it was planted as the smallest of the three.
const (
	formatIters = 480000
	lowerIters  = 143000
	pngIters    = 1170
)

//go:noinline
func plantedFormat(n int) {
	v := bigStruct{ID: 7, Name: "widget", Tags: []string{"a", "b", "c"}, Attrs: map[string]int{"x": 1, "y": 2}}
	v.Nested.C = []int{1, 2, 3, 4, 5}
	for i := 0; i < n; i++ {
		Sink += len(fmt.Sprintf("%v", v))
	}
}

//go:noinline
func plantedLower(n int) {
	s := strings.Repeat("The Quick Brown Fox Jumps Over The Lazy Dog ", 40)
	for i := 0; i < n; i++ {
		Sink += len(strings.ToLower(s))
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
		Sink += buf.Len()
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

// RealCPUProfile profiles the three planted CPU costs (once per test
// binary); it skips the test where CPU profiling cannot show them.
func RealCPUProfile(t testing.TB) *profile.Profile {
	t.Helper()
	if RaceEnabled {
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
	// The planted work is about 1 s of CPU, which the profiler samples
	// by the process's own CPU time however busy the machine: fewer
	// samples mean the profiling signals did not arrive.
	if len(realCPU.Sample) < 20 {
		t.Fatalf("CPU profile of about 1 s of planted work has only %d samples: the profiling signals did not arrive", len(realCPU.Sample))
	}
	return realCPU
}

// allocsNow snapshots the cumulative allocation profile.
func allocsNow(t testing.TB) *profile.Profile {
	t.Helper()
	runtime.GC()
	var buf bytes.Buffer
	if err := pprof.Lookup(string(runfmt.ProfileAllocs)).WriteTo(&buf, 0); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// RealAllocProfile records the allocations of plantedParse with every
// allocation sampled: the difference of two snapshots of the cumulative
// allocs profile, as `go tool pprof -diff_base` computes it.
func RealAllocProfile(t testing.TB) *profile.Profile {
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
		Sink += len(plantedParse(lines))
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

// Planted is the package path of the planted functions, to name them:
// Planted+"plantedLower".
const Planted = "perflab/internal/labtest."
