package capture

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

func hasFunction(p *profile.Profile, substr string) bool {
	for _, f := range p.Function {
		if strings.Contains(f.Name, substr) {
			return true
		}
	}
	return false
}

func TestProbe(t *testing.T) {
	ts := newPprofServer(t)
	var c Client
	if err := c.Probe(context.Background(), ts.URL); err != nil {
		t.Fatalf("Probe(%s) = %v, want nil", ts.URL, err)
	}
	if err := c.Probe(context.Background(), ts.URL+"/debug/pprof/"); err != nil {
		t.Fatalf("Probe(%s/debug/pprof/) = %v, want nil", ts.URL, err)
	}
}

func TestCPUUnderLoad(t *testing.T) {
	ts := newPprofServer(t)
	stop := startLoad(t, ts.URL)
	defer stop()
	var c Client
	p, raw, err := c.CPU(context.Background(), ts.URL, 1)
	if err != nil {
		t.Fatalf("CPU(%s, 1): %v", ts.URL, err)
	}
	if !bytes.HasPrefix(raw, []byte{0x1f, 0x8b}) {
		t.Errorf("CPU raw bytes start %q, want gzip", raw[:min(len(raw), 4)])
	}
	if len(p.Sample) == 0 || !hasFunction(p, "capture.burnCPU") {
		t.Fatalf("CPU profile has %d samples and no capture.burnCPU; want the burner in it", len(p.Sample))
	}
	if p.PeriodType == nil || p.PeriodType.Type != "cpu" {
		t.Errorf("CPU profile period type %v, want cpu", p.PeriodType)
	}
}

func TestFetchSnapshots(t *testing.T) {
	ts := newPprofServer(t)
	var c Client
	for _, tc := range []struct {
		name            Endpoint
		query, wantType string
	}{
		{"allocs", "", "alloc_space"},
		{"heap", "gc=1", "inuse_space"},
		{"goroutine", "", "goroutine"},
		{"mutex", "", "contentions"},
		{"block", "", "contentions"},
		{"allocs", "seconds=1", "alloc_space"},
	} {
		p, raw, err := c.Fetch(context.Background(), ts.URL, tc.name, tc.query)
		if err != nil {
			t.Errorf("Fetch(%s, %q): %v", tc.name, tc.query, err)
			continue
		}
		if len(raw) == 0 || !strings.Contains(sampleTypes(p), tc.wantType) {
			t.Errorf("Fetch(%s, %q) sample types %s, want %s", tc.name, tc.query, sampleTypes(p), tc.wantType)
		}
	}
}

func TestTrace(t *testing.T) {
	ts := newPprofServer(t)
	stop := startLoad(t, ts.URL)
	defer stop()
	var c Client
	b, err := c.Trace(context.Background(), ts.URL, 1)
	if err != nil {
		t.Fatalf("Trace(%s, 1): %v", ts.URL, err)
	}
	if len(b) < 1000 {
		t.Errorf("Trace returned %d bytes, want a real trace", len(b))
	}
}

var allocSink [][]byte

//go:noinline
func allocBurst(total, chunk int) {
	for i := 0; i < total/chunk; i++ {
		allocSink = append(allocSink, make([]byte, chunk))
	}
}

func TestDeltaAllocs(t *testing.T) {
	ts := newPprofServer(t)
	var c Client
	ctx := context.Background()
	before, _, err := c.Fetch(ctx, ts.URL, "allocs", "gc=1")
	if err != nil {
		t.Fatal(err)
	}
	const total = 64 << 20
	allocBurst(total, 32<<10)
	allocSink = nil
	runtime.GC()
	after, _, err := c.Fetch(ctx, ts.URL, "allocs", "gc=1")
	if err != nil {
		t.Fatal(err)
	}
	d, err := Delta(before, after)
	if err != nil {
		t.Fatalf("Delta: %v", err)
	}
	idx := -1
	for i, st := range d.SampleType {
		if st.Type == "alloc_space" {
			idx = i
		}
	}
	var burst, all int64
	for _, s := range d.Sample {
		all += s.Value[idx]
		for _, l := range s.Location {
			if len(l.Line) > 0 && strings.HasSuffix(l.Line[0].Function.Name, "capture.allocBurst") {
				burst += s.Value[idx]
				break
			}
		}
	}
	t.Logf("allocBurst: %d bytes in the delta, %d allocated", burst, total)
	if burst < total/2 || burst > total*2 {
		t.Errorf("delta alloc_space in allocBurst = %d bytes, want about %d (all samples: %d)", burst, total, all)
	}
	if d.DefaultSampleType != after.DefaultSampleType || len(d.SampleType) != len(after.SampleType) {
		t.Errorf("delta types %s (default %q), want after's %s (default %q)", sampleTypes(d), d.DefaultSampleType, sampleTypes(after), after.DefaultSampleType)
	}
	// The burst must not be in the "before" snapshot's share of the delta:
	// before minus itself is empty.
	self, err := Delta(before, before)
	if err != nil || len(self.Sample) != 0 {
		t.Errorf("Delta(p, p) = %d samples, %v; want 0, nil", len(self.Sample), err)
	}
}
