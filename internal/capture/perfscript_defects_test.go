package capture

import (
	"fmt"
	"strings"
	"testing"
)

// The inputs below are written for these tests in the layouts perf script
// prints: with --header (a block of "#" comments first), the unindented frame
// lines of older perf versions, frames perf could not symbolise, and two
// events in one recording.

const perfHeaderBlock = `# ========
# captured on    : Mon Mar  2 10:00:00 2026
# hostname : build-7
# os release : 6.1.0-18-amd64
# perf version : 6.1.76
# arch : x86_64
# nrcpus online : 8
# nrcpus avail : 8
# cpudesc : Example CPU @ 2.00GHz
# total memory : 16318420 kB
# cmdline : /usr/bin/perf record -e cpu-clock -F 99 -g -p 4242
# event : name = cpu-clock, , id = { 41, 42 }, type = 1, size = 136, { sample_period, sample_freq } = 99
# sample duration :      0.010 ms
# ========
#
`

func TestParsePerfScriptSkipsHeaderComments(t *testing.T) {
	in := perfHeaderBlock + `svc 4242/4243 100.000001:   10101010 cpu-clock: 
	  401a10 work+0x10 (/srv/svc)
	  401b00 main+0x20 (/srv/svc)

svc 4242/4243 100.010102:   10101010 cpu-clock: 
	  401a18 work+0x18 (/srv/svc)
	  401b00 main+0x20 (/srv/svc)

svc 4242/4244 100.020203:   10101010 cpu-clock: 
	  401b04 main+0x24 (/srv/svc)
`
	p, err := ParsePerfScript(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if n := totalSamples(p.Sample); n != 3 {
		t.Errorf("%d samples, want 3: the header's comment lines are not samples (stacks %v)", n, stacks(p))
	}
	for _, s := range p.Sample {
		if len(s.Location) == 0 {
			t.Errorf("sample with an empty stack, labels %v %v", s.Label, s.NumLabel)
		}
	}
}

func TestParsePerfScriptUnindentedFrames(t *testing.T) {
	// Older perf versions print frames at the start of the line and leave
	// the time out of the header.
	const in = `
jvm 7001 cpu-clock:
ffffffff81060e0a native_safe_halt ([kernel.kallsyms])
7f10a0001234 Lcom/example/Cart;::total (/tmp/perf-7001.map)
7f10a0005678 Lcom/example/Api;::handle (/tmp/perf-7001.map)
7f10b2c45e9a start_thread (/lib/x86_64-linux-gnu/libpthread-2.31.so)

jvm 7001 cpu-clock:
7f10a0001240 Lcom/example/Cart;::total (/tmp/perf-7001.map)
7f10a0005678 Lcom/example/Api;::handle (/tmp/perf-7001.map)
7f10b2c45e9a start_thread (/lib/x86_64-linux-gnu/libpthread-2.31.so)
`
	p, err := ParsePerfScript(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	got := stacks(p)
	want := map[string]int64{
		"native_safe_halt<-Lcom/example/Cart;::total<-Lcom/example/Api;::handle<-start_thread": 1,
		"Lcom/example/Cart;::total<-Lcom/example/Api;::handle<-start_thread":                   1,
	}
	if len(got) != len(want) {
		t.Fatalf("stacks %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("stack %q: %d samples, want %d (all: %v)", k, got[k], v, got)
		}
	}
}

func TestParsePerfScriptUnsymbolisedFramesByBinary(t *testing.T) {
	// Frames perf could not name become locations without a function, in
	// the mapping of their binary: pprof (and perflab's top) show one row
	// per binary for them, not one per address.
	var b strings.Builder
	for i := range 40 {
		b.WriteString("app 9/9 1.0: 1000000 cpu-clock:\n")
		fmt.Fprintf(&b, "\t7f00000%x00 [unknown] (/opt/app/libcrunch.so)\n", i)
		b.WriteString("\t401000 main+0x5 (/opt/app/app)\n\n")
	}
	p, err := ParsePerfScript(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	for _, fn := range p.Function {
		if strings.Contains(fn.Name, "0x") || strings.Contains(fn.Name, "libcrunch") {
			t.Errorf("function %q names an address: unsymbolised frames must stay unsymbolised", fn.Name)
		}
	}
	n := 0
	for _, loc := range p.Location {
		if len(loc.Line) == 0 {
			n++
			if loc.Mapping == nil || loc.Mapping.File != "/opt/app/libcrunch.so" || loc.Address == 0 {
				t.Errorf("unsymbolised location %+v: want its address and the mapping of libcrunch.so", loc)
			}
		}
	}
	if n == 0 {
		t.Errorf("no unsymbolised locations")
	}
}

func TestParsePerfScriptTwoEvents(t *testing.T) {
	const in = `svc 10/10 5.000: 10101010 cpu-clock: 
	  401a10 work+0x10 (/srv/svc)
	  401b00 main+0x20 (/srv/svc)

svc 10/10 5.001: 1 page-faults: 
	  401c00 alloc+0x4 (/srv/svc)
	  401b00 main+0x20 (/srv/svc)

svc 10/10 5.010: 10101010 cpu-clock: 
	  401a10 work+0x10 (/srv/svc)
	  401b00 main+0x20 (/srv/svc)

svc 10/10 5.011: 3 page-faults: 
	  401c00 alloc+0x4 (/srv/svc)
	  401b00 main+0x20 (/srv/svc)
`
	p, err := ParsePerfScript(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	for i, st := range p.SampleType {
		types[st.Type+"/"+st.Unit] = i
	}
	cpu, ok := types["cpu/nanoseconds"]
	if !ok {
		t.Fatalf("sample types %v: want cpu/nanoseconds for the cpu-clock samples", p.SampleType)
	}
	if p.DefaultSampleType != "cpu" {
		t.Errorf("default sample type %q, want cpu", p.DefaultSampleType)
	}
	sum := func(vi int, fn string) int64 {
		var v int64
		for _, s := range p.Sample {
			if s.Location[0].Line[0].Function.Name == fn {
				v += s.Value[vi]
			}
		}
		return v
	}
	if got := sum(cpu, "alloc"); got != 0 {
		t.Errorf("page faults counted as %d ns of CPU", got)
	}
	if got := sum(cpu, "work"); got != 2*10101010 {
		t.Errorf("cpu of work = %d ns, want %d", got, 2*10101010)
	}
	pf, ok := types["page-faults_event/count"]
	if !ok {
		t.Fatalf("sample types %v: want page-faults_event/count", p.SampleType)
	}
	if got := sum(pf, "alloc"); got != 4 {
		t.Errorf("page faults of alloc = %d, want 4 (the periods)", got)
	}
	if len(p.Comments) == 0 || !strings.Contains(strings.Join(p.Comments, " "), "page-faults") {
		t.Errorf("comments %q: want a note that the script holds two events", p.Comments)
	}
	for _, s := range p.Sample {
		if ev := s.Label["event"]; len(ev) != 1 {
			t.Errorf("sample %v has event label %v, want one", s.Location, ev)
		}
	}
}

func TestParsePerfScriptFrameOnHeaderLine(t *testing.T) {
	// Without a call chain (perf record without -g) the sampled frame is
	// printed on the sample's own line.
	const in = "svc 10/10 5.000:   10101010 cpu-clock:      401a10 work+0x10 (/srv/svc)\n" +
		"svc 10/10 5.010:   10101010 cpu-clock:      401a10 work+0x10 (/srv/svc)\n"
	p, err := ParsePerfScript(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := stacks(p); got["work"] != 2 || len(got) != 1 {
		t.Errorf("stacks %v, want work x2", got)
	}
}
