package analysis

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"
)

// synthProfile is a deterministic CPU profile with nsamples sample records
// over about nstacks distinct stacks of depth 5-35 drawn from 1000 functions.
func synthProfile(nsamples, nstacks int) *profile.Profile {
	r := rand.New(rand.NewPCG(7, 9))
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 1e7,
	}
	for i := 0; i < 1000; i++ {
		name := fmt.Sprintf("github.com/acme/svc/p%d.F%d", i%30, i)
		if i%4 == 0 {
			name = fmt.Sprintf("runtime.f%d", i)
		}
		fn := &profile.Function{ID: uint64(i + 1), Name: name, Filename: "f.go"}
		p.Function = append(p.Function, fn)
		p.Location = append(p.Location, &profile.Location{ID: uint64(i + 1), Address: uint64(i), Line: []profile.Line{{Function: fn}}})
	}
	stacks := make([][]*profile.Location, nstacks)
	for i := range stacks {
		depth := 5 + r.IntN(30)
		for d := 0; d < depth; d++ {
			stacks[i] = append(stacks[i], p.Location[(i*7+d*d*13+r.IntN(3))%1000])
		}
	}
	for i := 0; i < nsamples; i++ {
		p.Sample = append(p.Sample, &profile.Sample{Location: stacks[(i*2654435761)%nstacks], Value: []int64{1, 1e7}})
	}
	return p
}

var benchFile string

// benchProfile writes synthProfile(200k, 20k) once, or uses
// $PERFLAB_BENCH_PROFILE (e.g. the file bench/top/gen writes).
func benchProfile(b *testing.B) string {
	if f := os.Getenv("PERFLAB_BENCH_PROFILE"); f != "" {
		return f
	}
	if benchFile == "" {
		dir, err := os.MkdirTemp("", "perflab-bench")
		if err != nil {
			b.Fatal(err)
		}
		benchFile = filepath.Join(dir, "synth.pb.gz")
		var buf bytes.Buffer
		if err := synthProfile(200000, 20000).Write(&buf); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(benchFile, buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return benchFile
}

// BenchmarkTop is `perflab top` on a large file: lean decoding plus the table.
func BenchmarkTop(b *testing.B) {
	path := benchProfile(b)
	b.ReportAllocs()
	for b.Loop() {
		t, err := TopFile(path, TopOptions{N: 30, User: true, Requests: 1000})
		if err != nil {
			b.Fatal(err)
		}
		if err := t.WriteText(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTopParsed is the same through profile.Parse and Top, for
// comparison with the lean decoder.
func BenchmarkTopParsed(b *testing.B) {
	data, err := os.ReadFile(benchProfile(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		p, err := profile.ParseData(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Top(p, TopOptions{N: 30, User: true, Requests: 1000}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteFlameHTML renders the flame page of a parsed large profile.
func BenchmarkWriteFlameHTML(b *testing.B) {
	data, err := os.ReadFile(benchProfile(b))
	if err != nil {
		b.Fatal(err)
	}
	p, err := profile.ParseData(data)
	if err != nil {
		b.Fatal(err)
	}
	var size int
	b.ReportAllocs()
	for b.Loop() {
		var buf bytes.Buffer
		if err := WriteFlameHTML(&buf, p, FlameOptions{Requests: 1000}); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(size), "page-bytes")
}

func TestSynthProfileValid(t *testing.T) {
	if err := synthProfile(1000, 100).CheckValid(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkFlameFile is `perflab flame` on a large file: lean decoding plus
// the pruned tree and the page (compare with BenchmarkTop).
func BenchmarkFlameFile(b *testing.B) {
	path := benchProfile(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteFlameHTMLFile(io.Discard, path, FlameOptions{Requests: 1000}); err != nil {
			b.Fatal(err)
		}
	}
}
