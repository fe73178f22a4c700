// Command gen writes a large, deterministic CPU profile for the top
// benchmark: by default 600k samples over 60k distinct stacks of a synthetic
// Go service (net/http serving user handlers that call into the standard
// library), gzipped in pprof's format.
//
//	go run ./bench/top/gen -o /tmp/big.pb.gz [-samples 600000] [-stacks 60000] [-funcs 2000] [-lines 4] [-aggregate]
//
// Samples are written one record each, as perf-converted profiles are;
// -aggregate merges equal stacks into one record, as runtime/pprof does.
// Each function has -lines source lines (call sites), each its own
// location, so line-granularity views (top --lines, list) have work to do.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/google/pprof/profile"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	out := fs.String("o", "big.pb.gz", "write the profile to `file`")
	samples := fs.Int("samples", 600000, "number of samples")
	stacks := fs.Int("stacks", 60000, "number of distinct stacks")
	aggregate := fs.Bool("aggregate", false, "merge equal stacks into one sample record")
	lines := fs.Int("lines", 4, "source lines (locations) per function")
	funcs := fs.Int("funcs", 2000, "number of user functions")
	perfScript := fs.String("perf-script", "", "also write the same samples as `perf script` text to this file (for peers that read perf's output)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *lines < 1 {
		return fmt.Errorf("-lines %d: want at least 1", *lines)
	}
	if *funcs < 1 {
		return fmt.Errorf("-funcs %d: want at least 1", *funcs)
	}
	p := generate(*samples, *stacks, *funcs, *lines, *aggregate)
	if *perfScript != "" {
		if err := writePerfScript(*perfScript, p); err != nil {
			return err
		}
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := p.Write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", *out, err)
	}
	return f.Close()
}

// callGraph is a synthetic program: functions and who calls whom.
type callGraph struct {
	p       *profile.Profile
	locs    [][]*profile.Location // per function, one per line
	callees [][]int
}

var stdNames = []string{
	"runtime.mallocgc", "runtime.memmove", "runtime.mapaccess2_faststr", "runtime.growslice",
	"runtime.scanobject", "runtime.findObject", "strings.ToLower", "strings.Split",
	"strconv.AppendInt", "fmt.Sprintf", "fmt.(*pp).doPrintf", "fmt.(*pp).printValue",
	"encoding/json.Marshal", "encoding/json.(*encodeState).reflectValue", "reflect.Value.Field",
	"sort.Slice", "bytes.(*Buffer).Write", "net/http.(*response).Write", "bufio.(*Writer).Flush",
	"syscall.Syscall", "internal/poll.(*FD).Write", "compress/flate.(*compressor).deflate",
	"image/png.(*encoder).writeIDATs", "crypto/sha256.block", "regexp.(*Regexp).doExecute",
}

func newCallGraph(r *rand.Rand, nuser, nlines int) *callGraph {
	g := &callGraph{p: &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType:        &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:            10000000,
		DurationNanos:     60e9,
		DefaultSampleType: "cpu",
	}}
	m := &profile.Mapping{ID: 1, Start: 0x400000, Limit: 0x4000000, File: "/srv/shop", HasFunctions: true}
	g.p.Mapping = []*profile.Mapping{m}
	var names []string
	names = append(names, "runtime.goexit", "net/http.(*conn).serve", "net/http.serverHandler.ServeHTTP", "net/http.HandlerFunc.ServeHTTP")
	names = append(names, stdNames...)
	for i := 0; i < nuser; i++ {
		names = append(names, fmt.Sprintf("github.com/acme/shop/internal/pkg%02d.(*Type%d).Method%d", i%40, i%17, i))
	}
	for i, name := range names {
		fn := &profile.Function{ID: uint64(i + 1), Name: name, SystemName: name, Filename: fmt.Sprintf("/src/f%d.go", i%300)}
		g.p.Function = append(g.p.Function, fn)
		fn.StartLine = int64(10 + i%500)
		var locs []*profile.Location
		for k := 0; k < nlines; k++ {
			loc := &profile.Location{ID: uint64(len(g.p.Location) + 1), Mapping: m, Address: 0x400000 + uint64(len(g.p.Location))*16,
				Line: []profile.Line{{Function: fn, Line: fn.StartLine + 1 + int64(k)*3}}}
			g.p.Location = append(g.p.Location, loc)
			locs = append(locs, loc)
		}
		g.locs = append(g.locs, locs)
	}
	firstUser := 4 + len(stdNames)
	g.callees = make([][]int, len(names))
	for i := 0; i < 3; i++ {
		g.callees[i] = []int{i + 1}
	}
	for k := 0; k < 30; k++ { // handlers
		g.callees[3] = append(g.callees[3], firstUser+r.IntN(nuser))
	}
	for i := firstUser; i < len(names); i++ {
		for k := 0; k < 6; k++ {
			if r.IntN(3) == 0 {
				g.callees[i] = append(g.callees[i], 4+r.IntN(len(stdNames)))
			} else {
				g.callees[i] = append(g.callees[i], firstUser+r.IntN(nuser))
			}
		}
	}
	for i := 10; i < firstUser; i++ { // the rest of std calls into the runtime
		g.callees[i] = []int{4, 5, 6, 7, 8, 9}
	}
	return g
}

// stack walks the call graph from the root to a random depth.
func (g *callGraph) stack(r *rand.Rand) []*profile.Location {
	depth := 6 + r.IntN(30)
	fn := 0
	path := []int{0}
	for len(path) < depth && len(g.callees[fn]) > 0 {
		fn = g.callees[fn][r.IntN(len(g.callees[fn]))]
		path = append(path, fn)
	}
	out := make([]*profile.Location, len(path))
	for i, f := range path { // leaf first
		out[len(path)-1-i] = g.locs[f][r.IntN(len(g.locs[f]))]
	}
	return out
}

func generate(nsamples, nstacks, nfuncs, nlines int, aggregate bool) *profile.Profile {
	r := rand.New(rand.NewPCG(1, 2))
	g := newCallGraph(r, nfuncs, nlines)
	seen := map[string]bool{}
	var stacks [][]*profile.Location
	for len(stacks) < nstacks {
		st := g.stack(r)
		key := fmt.Sprint(locIDs(st))
		if !seen[key] {
			seen[key] = true
			stacks = append(stacks, st)
		}
	}
	zipf := rand.NewZipf(r, 1.1, 4, uint64(nstacks-1))
	counts := make([]int64, nstacks)
	for i := 0; i < nsamples; i++ {
		// Every stack at least once, then a skewed distribution.
		k := i
		if i >= nstacks {
			k = int(zipf.Uint64())
		}
		if aggregate {
			counts[k]++
			continue
		}
		g.p.Sample = append(g.p.Sample, &profile.Sample{Location: stacks[k], Value: []int64{1, g.p.Period}})
	}
	for k, n := range counts {
		if n > 0 {
			g.p.Sample = append(g.p.Sample, &profile.Sample{Location: stacks[k], Value: []int64{n, n * g.p.Period}})
		}
	}
	return g.p
}

func locIDs(st []*profile.Location) []uint64 {
	ids := make([]uint64, len(st))
	for i, l := range st {
		ids[i] = l.ID
	}
	return ids
}

// writePerfScript writes p's samples as `perf script` prints a cpu-clock
// recording: one record per sample (a record of count n, n times), leaf
// frame first, each frame "address symbol+offset (binary)".
func writePerfScript(path string, p *profile.Profile) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	ts := 0.0
	for _, s := range p.Sample {
		for n := int64(0); n < s.Value[0]; n++ {
			ts += 0.0001
			fmt.Fprintf(w, "shop 4242 [000] %.6f: %d cpu-clock:\n", ts, p.Period)
			for _, loc := range s.Location {
				fmt.Fprintf(w, "\t%16x %s+0x0 (%s)\n", loc.Address, loc.Line[0].Function.Name, loc.Mapping.File)
			}
			w.WriteString("\n")
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}
