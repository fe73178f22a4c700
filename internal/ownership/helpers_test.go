package ownership

import (
	"bufio"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// The profiles of these tests are real recordings (testdata/perf: `perf
// script -F comm,tid,period,ip,sym,dso` of real services; testdata/pyspy
// and rbspy.txt: py-spy's and rbspy's output). They are read into pprof
// profiles the way perflab's capture package builds them: a location per
// frame, the function's file the source file when the profiler gives
// one, else the binary, the mapping the binary, the thread's name as the
// "comm" label.

// profileBuilder assembles a profile from frames, one function per
// (name, file) and one location per (function, binary).
type profileBuilder struct {
	p     *profile.Profile
	funcs map[[2]string]*profile.Function
	locs  map[[3]string]*profile.Location
	maps  map[string]*profile.Mapping
}

func newProfileBuilder() *profileBuilder {
	return &profileBuilder{
		p: &profile.Profile{
			SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
			PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 1e7,
		},
		funcs: map[[2]string]*profile.Function{}, locs: map[[3]string]*profile.Location{}, maps: map[string]*profile.Mapping{},
	}
}

// frame adds (or finds) the location of a frame.
func (b *profileBuilder) frame(name, file, bin string) *profile.Location {
	k := [3]string{name, file, bin}
	if l, ok := b.locs[k]; ok {
		return l
	}
	loc := &profile.Location{ID: uint64(len(b.p.Location) + 1)}
	if bin != "" {
		m, ok := b.maps[bin]
		if !ok {
			m = &profile.Mapping{ID: uint64(len(b.p.Mapping) + 1), File: bin}
			b.maps[bin] = m
			b.p.Mapping = append(b.p.Mapping, m)
		}
		loc.Mapping = m
	}
	if name != "" {
		fk := [2]string{name, file}
		fn, ok := b.funcs[fk]
		if !ok {
			fn = &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: name, SystemName: name, Filename: file}
			b.funcs[fk] = fn
			b.p.Function = append(b.p.Function, fn)
		}
		loc.Line = []profile.Line{{Function: fn}}
	}
	b.locs[k] = loc
	b.p.Location = append(b.p.Location, loc)
	return loc
}

func (b *profileBuilder) sample(locs []*profile.Location, n int64, comm string) {
	s := &profile.Sample{Location: locs, Value: []int64{n, n * b.p.Period}}
	if comm != "" {
		s.Label = map[string][]string{"comm": {comm}}
	}
	b.p.Sample = append(b.p.Sample, s)
}

var (
	perfHeader = regexp.MustCompile(`^(\S.*?)\s+[0-9]+(?:/[0-9]+)?(?:\s|$)`)
	perfFrame  = regexp.MustCompile(`^\s+[0-9a-f]+ (.*?)(?:\+0x[0-9a-f]+)? \((.*)\)$`)
)

// perfProfile reads `perf script` output: a header line per sample
// starting with the thread's name and its pid or tid (-F
// comm,tid,period,ip,sym,dso, or perflab's fields), then a frame per
// line.
func perfProfile(t testing.TB, file string) *profile.Profile {
	t.Helper()
	b := newProfileBuilder()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var comm string
	var stack []*profile.Location
	flush := func() {
		if len(stack) > 0 {
			b.sample(stack, 1, comm)
		}
		stack = nil
	}
	for sc.Scan() {
		line := sc.Text()
		if m := perfHeader.FindStringSubmatch(line); m != nil && line[0] != '\t' && line[0] != ' ' {
			flush()
			comm = strings.TrimSpace(m[1])
			continue
		}
		m := perfFrame.FindStringSubmatch(line)
		if m == nil {
			if strings.TrimSpace(line) == "" {
				flush()
			}
			continue
		}
		name, dso := m[1], m[2]
		if dso == "[unknown]" {
			dso = ""
		}
		if name == "[unknown]" && dso != "" {
			name = "" // an address of a known binary: a location without a function
		}
		stack = append(stack, b.frame(name, dso, dso))
	}
	flush()
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return b.p
}

var (
	pySpyFrame = regexp.MustCompile(`^(.*) \((.*?)(?::([0-9]+))?\)$`)
	rbSpyFrame = regexp.MustCompile(`^(.*) - (.*?)(?::([0-9]+))?$`)
)

// collapsedProfile reads py-spy's or rbspy's collapsed stacks (root
// first, ";"-separated, a count at the end).
func collapsedProfile(t testing.TB, file string) *profile.Profile {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	b := newProfileBuilder()
	for _, line := range strings.Split(string(data), "\n") {
		sp := strings.LastIndexByte(line, ' ')
		if sp < 0 {
			continue
		}
		n, err := strconv.ParseInt(line[sp+1:], 10, 64)
		if err != nil {
			continue
		}
		parts := strings.Split(line[:sp], ";")
		var stack []*profile.Location
		for i := len(parts) - 1; i >= 0; i-- {
			stack = append(stack, collapsedFrame(b, parts[i]))
		}
		b.sample(stack, n, "")
	}
	return b.p
}

func collapsedFrame(b *profileBuilder, s string) *profile.Location {
	if strings.HasSuffix(s, "[c function] - (unknown)") {
		return b.frame("[c function] "+strings.TrimSuffix(s, " [c function] - (unknown)"), "", "")
	}
	if m := rbSpyFrame.FindStringSubmatch(s); m != nil {
		return b.frame(m[1], m[2], "")
	}
	if m := pySpyFrame.FindStringSubmatch(s); m != nil {
		if strings.HasPrefix(m[1], "0x") || !isSourceFile(m[2]) && !strings.HasPrefix(m[2], "<") {
			return b.frame(m[1], m[2], m[2]) // py-spy --native: a C frame of a binary
		}
		return b.frame(m[1], m[2], "")
	}
	return b.frame(s, "", "")
}

// frames returns a sample's frames, leaf first.
func frames(s *profile.Sample) []Frame {
	var out []Frame
	for _, loc := range s.Location {
		bin := ""
		if loc.Mapping != nil {
			bin = loc.Mapping.File
		}
		if len(loc.Line) == 0 {
			out = append(out, Frame{Binary: bin})
		}
		for _, ln := range loc.Line {
			out = append(out, Frame{Func: ln.Function.Name, File: ln.Function.Filename, Binary: bin})
		}
	}
	return out
}

func mustNew(t testing.TB, s Spec) *Model {
	t.Helper()
	m, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
