package capture

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// DefaultPerfHz is the sampling frequency PerfRecord uses when none is set:
// 99 Hz, like most perf recipes, so sampling does not run in lockstep with
// periodic work at 100 Hz.
const DefaultPerfHz = 99

// perfScriptFields are the `perf script -F` fields parsePerfScript expects.
const perfScriptFields = "comm,pid,tid,time,period,event,ip,sym,dso,symoff"

// maxPerfLine bounds one line of perf script output (long C++ symbols fit).
const maxPerfLine = 1 << 20

// parsePerfScript reads the text of `perf script` (best with
// -F comm,pid,tid,time,period,event,ip,sym,dso,symoff) into a CPU profile
// with sample types samples/count and cpu/nanoseconds. Each sample is a
// header line ("comm pid/tid time: period event:") followed by one line per
// frame, leaf first ("ip symbol+0xoff (dso)"; indented by today's perf, at
// the start of the line by older versions), and a blank line; without a
// call chain the one frame follows the event on the header line. Lines
// starting with "#" (perf script --header) are comments. A sample's cpu
// value is its period (nanoseconds for cpu-clock), or 1e9/DefaultPerfHz
// when the period is missing. Frames perf could not symbolise become
// locations of their binary without a function, as in pprof, or
// "[unknown]" without a binary. Samples carry the labels comm, pid, tid
// and, when the header names it, event. Lines that fit no shape are
// skipped.
//
// A script of several events (or of one event that is not a CPU clock)
// gets two sample types per event, "EVENT_sample" (samples) and
// "EVENT_event" (the events they stand for, the sum of periods), like
// pprof's perf_to_profile, plus cpu/nanoseconds for cpu-clock or
// task-clock samples; a comment in the profile says so, so that nothing is
// summed across events.
// JIT frames are named from the perf map files in jit (which may be nil).
//
// When times is not nil, it also appends the time of each sample whose
// header has one.
func parsePerfScript(r io.Reader, jit *jitMaps, times *[]SampleTime) (*profile.Profile, error) {
	const defaultPeriod = int64(1e9) / DefaultPerfHz
	b := newBuilder(defaultPeriod)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxPerfLine)
	var (
		inSample bool
		hdr      perfHeader
		stack    []frame
	)
	flush := func() {
		if inSample {
			s := b.add(stack, 1, hdr.period, hdr.labels)
			if times != nil && hdr.timed {
				*times = append(*times, SampleTime{Sample: s, Mono: hdr.time})
			}
		}
		inSample, stack = false, nil
	}
	for sc.Scan() {
		line := sc.Text()
		indented := line != "" && (line[0] == ' ' || line[0] == '\t')
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case line[0] == '#':
			// perf script --header: the recording's description.
		case indented && inSample && looksLikeFrame(line):
			stack = append(stack, jit.resolve(parsePerfFrame(line)))
		default:
			if h, ok := parsePerfHeader(line, defaultPeriod); ok {
				flush()
				hdr, inSample = h, true
				if h.frame != "" {
					stack = append(stack, parsePerfFrame(h.frame))
				}
			} else if inSample && looksLikeFrame(line) {
				stack = append(stack, parsePerfFrame(line))
			} else if !indented {
				flush()
			}
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading perf script output: %w", err)
	}
	p := b.profile()
	splitEvents(p, b.events)
	return p, nil
}

// perfHeader is what a sample's first line tells.
type perfHeader struct {
	labels labels
	period int64
	frame  string // the sampled frame, printed after the event without a call chain
	// time is when it was taken, on perf's clock, when timed.
	time  time.Duration
	timed bool
}

var (
	pidTID   = regexp.MustCompile(`^([0-9]+)(?:/([0-9]+))?$`)
	timeTok  = regexp.MustCompile(`^[0-9]+\.[0-9]+:$`)
	cpuTok   = regexp.MustCompile(`^\[[0-9]+\]$`)
	hexToken = regexp.MustCompile(`^[0-9a-fA-F]{1,16}$`)
)

// parsePerfHeader reads "comm pid/tid [cpu] time: period event: [frame]";
// comm may contain spaces. ok is false when the line has no pid after a
// comm, or nothing after the pid ends with ":" (an event or a time).
func parsePerfHeader(line string, defaultPeriod int64) (h perfHeader, ok bool) {
	tok := strings.Fields(line)
	i := 1
	for ; i < len(tok); i++ {
		if pidTID.MatchString(tok[i]) {
			break
		}
	}
	if i >= len(tok) {
		return h, false
	}
	m := pidTID.FindStringSubmatch(tok[i])
	h.labels.comm = strings.Join(tok[:i], " ")
	h.labels.pid, _ = strconv.ParseInt(m[1], 10, 64)
	h.labels.tid = h.labels.pid
	if m[2] != "" {
		h.labels.tid, _ = strconv.ParseInt(m[2], 10, 64)
	}
	h.period = -1
	colon := false
	for j := i + 1; j < len(tok); j++ {
		t := tok[j]
		switch {
		case cpuTok.MatchString(t):
		case timeTok.MatchString(t):
			colon = true
			h.time, h.timed = parsePerfTime(t)
		case h.period < 0 && isPeriod(t):
			h.period, _ = strconv.ParseInt(t, 10, 64)
		case strings.HasSuffix(t, ":"):
			h.labels.event, colon = strings.TrimSuffix(t, ":"), true
			h.frame = strings.Join(tok[j+1:], " ")
			j = len(tok)
		}
	}
	if !colon {
		return h, false
	}
	if h.period < 0 {
		h.period = 1
		if isClockEvent(h.labels.event) {
			h.period = defaultPeriod
		}
	}
	return h, true
}

func isPeriod(t string) bool {
	n, err := strconv.ParseInt(t, 10, 64)
	return err == nil && n > 0
}

// looksLikeFrame reports whether line is a frame: an address, then
// (usually) a symbol and the binary in parentheses.
func looksLikeFrame(line string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(line), " ")
	return hexToken.MatchString(first)
}

// isClockEvent reports whether a perf event counts CPU time in
// nanoseconds: cpu-clock or task-clock, with or without modifiers; ""
// (a script without the event field) is taken as perflab's cpu-clock.
func isClockEvent(ev string) bool {
	base, _, _ := strings.Cut(ev, ":")
	return base == "" || base == "cpu-clock" || base == "task-clock"
}

// splitEvents gives each event of a script its own sample types when the
// script is not the usual single CPU clock (see ParsePerfScript). events
// holds each sample's event.
func splitEvents(p *profile.Profile, events []string) {
	var names []string
	count := map[string]int64{}
	for i, s := range p.Sample {
		if events[i] != "" {
			s.Label = withLabel(s.Label, "event", events[i])
		}
		events[i] = eventName(events[i])
		if count[events[i]] == 0 {
			names = append(names, events[i])
		}
		count[events[i]] += s.Value[0]
	}
	if len(names) == 0 || len(names) == 1 && isClockEvent(names[0]) {
		return
	}
	idx := map[string]int{}
	var types []*profile.ValueType
	clock := false
	for i, ev := range names {
		idx[ev] = i
		clock = clock || isClockEvent(ev)
		types = append(types, &profile.ValueType{Type: ev + "_sample", Unit: "count"},
			&profile.ValueType{Type: ev + "_event", Unit: "count"})
	}
	cpu := -1
	if clock {
		cpu = len(types)
		types = append(types, &profile.ValueType{Type: runfmt.CPUSample, Unit: "nanoseconds"})
	}
	for i, s := range p.Sample {
		v := make([]int64, len(types))
		e := idx[events[i]]
		v[2*e], v[2*e+1] = s.Value[0], s.Value[1]
		if cpu >= 0 && isClockEvent(events[i]) {
			v[cpu] = s.Value[1]
		}
		s.Value = v
	}
	p.SampleType = types
	p.DefaultSampleType = types[1].Type
	if clock {
		p.DefaultSampleType = runfmt.CPUSample
	} else {
		p.PeriodType = &profile.ValueType{Type: types[1].Type, Unit: "count"}
		p.Period = 1
	}
	parts := make([]string, len(names))
	for i, ev := range names {
		parts[i] = fmt.Sprintf("%s (%d samples)", ev, count[ev])
	}
	note := fmt.Sprintf("perf script holds %d events: %s; each has its own sample types (EVENT_sample, EVENT_event)", len(names), strings.Join(parts, ", "))
	if len(names) == 1 {
		note = fmt.Sprintf("perf script holds %s, not a CPU clock: values count events, not CPU time", parts[0])
	}
	if clock {
		note += ", and cpu counts the CPU clock's samples only"
	}
	p.Comments = append(p.Comments, note)
}

// eventName names a sample's event; "" (no event field) is perflab's
// cpu-clock.
func eventName(ev string) string {
	if ev == "" {
		return "cpu-clock"
	}
	return ev
}

func withLabel(l map[string][]string, key, value string) map[string][]string {
	if l == nil {
		l = map[string][]string{}
	}
	l[key] = []string{value}
	return l
}

var symOffset = regexp.MustCompile(`\+0x[0-9a-fA-F]+$`)

// parsePerfFrame reads "ip symbol+0xoff (dso)"; the symbol may contain
// spaces and parentheses (demangled C++), the dso is the last parenthesised
// group.
func parsePerfFrame(line string) frame {
	s := strings.TrimSpace(line)
	var f frame
	ip, rest, _ := strings.Cut(s, " ")
	if a, err := strconv.ParseUint(ip, 16, 64); err == nil {
		f.addr = a
		s = strings.TrimSpace(rest)
	}
	if strings.HasSuffix(s, ")") {
		if open := matchingParen(s); open >= 0 {
			f.dso = s[open+1 : len(s)-1]
			s = strings.TrimSpace(s[:open])
		}
	}
	if f.dso == "[unknown]" {
		f.dso = ""
	}
	f.name = symOffset.ReplaceAllString(s, "")
	if f.name == "" || f.name == "[unknown]" {
		f.name = "[unknown]"
		if f.dso != "" {
			f.name = "" // unsymbolised: the location keeps its binary and address
		}
	}
	return f
}

// matchingParen returns the index of the "(" that closes with s's final ")",
// or -1.
func matchingParen(s string) int {
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// v8Symbol is how V8 names JavaScript code in a perf map (node
// --perf-basic-prof): "JS:~digest /srv/app.js:13:23", where ~ ^ * + say
// which tier compiled it (interpreter, Sparkplug, TurboFan...) and the
// file may be node's own ("node:internal/http:1:1").
var v8Symbol = regexp.MustCompile(`^(?:JS|LazyCompile|Function|InterpretedFunction|Eval|Script):[~^*+-]?(.*?) ?(\S+):([0-9]+):[0-9]+$`)

// jvmSymbol is how the JVM names a compiled method in its perf map (jcmd
// PID Compiler.perfmap): return type, class and method, parameter types.
var jvmSymbol = regexp.MustCompile(`^[\w$.<>\[\]]+ ([\w$.<>]+\.[\w$<>]+)\(.*\)$`)

func isPerfMap(dso string) bool {
	base := filepath.Base(dso)
	return strings.HasPrefix(base, "perf-") && strings.HasSuffix(base, ".map")
}

// jitFrame names a V8 frame by its function, with its file and line, the
// way pprof names Go code, so one function compiled by several tiers is
// one function; other perf-map frames are kept as they are.
func jitFrame(f frame) frame {
	if m := jvmSymbol.FindStringSubmatch(f.name); m != nil && !strings.Contains(f.name, "::") {
		f.name = m[1] // "void Server.handle(com.sun.net.httpserver.HttpExchange)" -> "Server.handle"
		return f
	}
	m := v8Symbol.FindStringSubmatch(f.name)
	if m == nil {
		return f
	}
	f.name, f.file = m[1], strings.TrimPrefix(m[2], "file://")
	f.line, _ = strconv.ParseInt(m[3], 10, 64)
	if f.name == "" { // an arrow function or callback: named by where it starts
		f.name = "(anonymous):" + m[3]
	}
	return f
}
