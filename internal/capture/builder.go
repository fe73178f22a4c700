package capture

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// builder assembles a CPU profile from stacks read from a profiler's text
// output, sharing one Function per name and one Location per frame, and
// adding up samples with the same stack and labels.
type builder struct {
	p       *profile.Profile
	funcs   map[funcKey]*profile.Function
	locs    map[frame]*profile.Location
	maps    map[string]*profile.Mapping
	samples map[string]*profile.Sample
	// events holds, per sample of p.Sample, the perf event it counts.
	events []string
}

type funcKey struct{ name, file string }

// frame is one stack frame as a profiler printed it.
type frame struct {
	name string // function name; empty for an address perf could not symbolise
	file string // source file, if known
	line int64  // source line, if known
	dso  string // binary or library, if known
	addr uint64 // instruction address, if known
}

// labels are the per-sample labels a profiler reports.
type labels struct {
	comm     string
	pid, tid int64
	event    string // perf event ("cpu-clock"), if the profiler names one
	// leaf is what runs at the leaf when the profiler says (LabelJVMLeaf).
	leaf string
}

// newBuilder starts a profile with sample types samples/count and
// cpu/nanoseconds, where each sample lasted periodNanos.
func newBuilder(periodNanos int64) *builder {
	return &builder{
		p: &profile.Profile{
			SampleType: []*profile.ValueType{
				{Type: runfmt.SampleCount, Unit: runfmt.SampleCountUnit},
				{Type: runfmt.CPUSample, Unit: "nanoseconds"},
			},
			DefaultSampleType: runfmt.CPUSample,
			PeriodType:        &profile.ValueType{Type: runfmt.CPUSample, Unit: "nanoseconds"},
			Period:            periodNanos,
		},
		funcs:   map[funcKey]*profile.Function{},
		locs:    map[frame]*profile.Location{},
		maps:    map[string]*profile.Mapping{},
		samples: map[string]*profile.Sample{},
	}
}

// add records count samples of cpuNanos each for stack (leaf first), and
// returns the profile's sample they were added to.
func (b *builder) add(stack []frame, count, cpuNanos int64, l labels) *profile.Sample {
	locs := make([]*profile.Location, len(stack))
	var key strings.Builder
	for i, f := range stack {
		locs[i] = b.location(f)
		key.WriteString(strconv.FormatUint(locs[i].ID, 36))
		key.WriteByte(',')
	}
	key.WriteString(l.comm + "|" + strconv.FormatInt(l.pid, 10) + "|" + strconv.FormatInt(l.tid, 10) + "|" + l.event + "|" + l.leaf)
	if s, ok := b.samples[key.String()]; ok {
		s.Value[0] += count
		s.Value[1] += cpuNanos
		return s
	}
	s := &profile.Sample{Location: locs, Value: []int64{count, cpuNanos}}
	if l.comm != "" {
		s.Label = map[string][]string{"comm": {l.comm}}
	}
	if l.leaf != "" {
		if s.Label == nil {
			s.Label = map[string][]string{}
		}
		s.Label[LabelJVMLeaf] = []string{l.leaf}
	}
	if l.pid != 0 || l.tid != 0 {
		s.NumLabel = map[string][]int64{"pid": {l.pid}}
		if l.tid != 0 {
			s.NumLabel["tid"] = []int64{l.tid}
		}
	}
	b.samples[key.String()] = s
	b.p.Sample = append(b.p.Sample, s)
	b.events = append(b.events, l.event)
	return s
}

func (b *builder) location(f frame) *profile.Location {
	if loc, ok := b.locs[f]; ok {
		return loc
	}
	// Without a source file, the function's file names its binary or
	// library ([kernel.kallsyms], libc.so.6...): analysis reads it to tell
	// the user's code from the system's.
	file := f.file
	if file == "" {
		file = f.dso
	}
	loc := &profile.Location{
		ID:      uint64(len(b.p.Location) + 1),
		Address: f.addr,
		Mapping: b.mapping(f.dso),
	}
	// An unsymbolised address stays one: a location of its binary without
	// a function, which pprof (and perflab) show as one row per binary.
	if f.name != "" {
		loc.Line = []profile.Line{{Function: b.function(f.name, file), Line: f.line}}
	}
	b.locs[f] = loc
	b.p.Location = append(b.p.Location, loc)
	return loc
}

func (b *builder) function(name, file string) *profile.Function {
	k := funcKey{name, file}
	if fn, ok := b.funcs[k]; ok {
		return fn
	}
	fn := &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: name, SystemName: name, Filename: file}
	b.funcs[k] = fn
	b.p.Function = append(b.p.Function, fn)
	return fn
}

// mapping returns the Mapping of a binary or library, nil if dso is empty.
// Addresses from perf script are not all absolute, so the mappings carry no
// address range; HasFunctions tells pprof not to symbolise them again.
func (b *builder) mapping(dso string) *profile.Mapping {
	if dso == "" {
		return nil
	}
	if m, ok := b.maps[dso]; ok {
		return m
	}
	m := &profile.Mapping{ID: uint64(len(b.p.Mapping) + 1), File: dso, HasFunctions: true}
	b.maps[dso] = m
	b.p.Mapping = append(b.p.Mapping, m)
	return m
}

// profile returns the built profile. The first mapping that looks like a
// program (not a shared library, the kernel or a perf map) goes first:
// pprof takes the first mapping as the profiled binary.
func (b *builder) profile() *profile.Profile {
	ms := b.p.Mapping
	for i, m := range ms {
		if isProgram(m.File) {
			copy(ms[1:i+1], ms[:i])
			ms[0] = m
			break
		}
	}
	return b.p
}

var sharedLib = regexp.MustCompile(`\.so(\.[0-9]+)*$`)

func isProgram(file string) bool {
	base := filepath.Base(file)
	return !sharedLib.MatchString(base) && !strings.HasPrefix(base, "[") &&
		!strings.HasPrefix(base, "perf-") && !strings.HasPrefix(file, "//anon")
}
