package capture

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// DefaultPerfHz is the sampling frequency PerfRecord uses when none is set:
// 99 Hz, like most perf recipes, so sampling does not run in lockstep with
// periodic work at 100 Hz.
const DefaultPerfHz = 99

// perfScriptFields are the `perf script -F` fields ParsePerfScript expects.
const perfScriptFields = "comm,pid,tid,time,period,event,ip,sym,dso,symoff"

// maxPerfLine bounds one line of perf script output (long C++ symbols fit).
const maxPerfLine = 1 << 20

// ParsePerfScript reads the text of `perf script` (best with
// -F comm,pid,tid,time,period,event,ip,sym,dso,symoff) into a CPU profile
// with sample types samples/count and cpu/nanoseconds. Each sample is a
// header line ("comm pid/tid time: period event:") followed by one indented
// line per frame, leaf first ("ip symbol+0xoff (dso)"), and a blank line.
// A sample's cpu value is its period (nanoseconds for cpu-clock), or
// 1e9/DefaultPerfHz when the period is missing. Frames perf could not
// symbolise are named "dso+0xADDR", or "[unknown]" without a dso. Samples
// carry the labels comm, pid and tid. Lines that fit neither shape are
// skipped.
func ParsePerfScript(r io.Reader) (*profile.Profile, error) {
	return parsePerfScript(r, nil)
}

// parsePerfScript is ParsePerfScript with JIT frames named from the perf
// map files themselves (jit may be nil).
func parsePerfScript(r io.Reader, jit *jitMaps) (*profile.Profile, error) {
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
			b.add(stack, 1, hdr.period, hdr.labels)
		}
		inSample, stack = false, nil
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case line[0] == ' ' || line[0] == '\t':
			if inSample {
				stack = append(stack, jit.resolve(parsePerfFrame(line)))
			}
		default:
			flush()
			hdr, inSample = parsePerfHeader(line, defaultPeriod)
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading perf script output: %w", err)
	}
	return b.profile(), nil
}

// perfHeader is what a sample's first line tells.
type perfHeader struct {
	labels labels
	period int64
}

var pidTID = regexp.MustCompile(`^([0-9]+)(?:/([0-9]+))?$`)

// parsePerfHeader reads "comm pid/tid [cpu] time: period event:"; comm may
// contain spaces. ok is false when the line has no pid after a comm.
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
	h.period = defaultPeriod
	for _, t := range tok[i+1:] {
		if n, err := strconv.ParseInt(t, 10, 64); err == nil && n > 0 {
			h.period = n
			break
		}
	}
	return h, true
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
			f.name = fmt.Sprintf("%s+0x%x", filepath.Base(f.dso), f.addr)
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
