package capture

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// ParseCollapsed reads collapsed stacks, one "root;caller;leaf COUNT" line
// per stack (Brendan Gregg's format, written by py-spy --format raw, rbspy
// --format collapsed and stackcollapse-*.pl), into a CPU profile with
// sample types samples/count and cpu/nanoseconds, each sample worth
// periodNanos (> 0). Frames in py-spy's "func (file.py:12)" and rbspy's
// "func - file.rb:12" shapes get their file and line. Blank lines and lines
// without a count are skipped.
func ParseCollapsed(r io.Reader, periodNanos int64) (*profile.Profile, error) {
	if periodNanos <= 0 {
		return nil, fmt.Errorf("parsing collapsed stacks: period %dns: must be more than 0", periodNanos)
	}
	b := newBuilder(periodNanos)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxPerfLine)
	for sc.Scan() {
		stack, count, ok := parseCollapsedLine(sc.Text())
		if !ok {
			continue
		}
		if count > (1<<62)/periodNanos {
			return nil, fmt.Errorf("parsing collapsed stacks: count %d is too large", count)
		}
		stack, l := processFrames(stack)
		b.add(stack, count, count*periodNanos, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading collapsed stacks: %w", err)
	}
	return b.profile(), nil
}

// pySpyProcess is the root frame py-spy --subprocesses puts above each
// process's stacks: process 4242:"python3 app.py".
var pySpyProcess = regexp.MustCompile(`^process ([0-9]+):"(.*)"$`)

// processFrames strips py-spy's process frames from the root end of stack
// (leaf first) and returns the innermost as the sample's pid and comm
// labels: with --subprocesses each worker's stacks sit under its master's.
func processFrames(stack []frame) ([]frame, labels) {
	var l labels
	for len(stack) > 0 {
		m := pySpyProcess.FindStringSubmatch(stack[len(stack)-1].name)
		if m == nil {
			break
		}
		l.pid, _ = strconv.ParseInt(m[1], 10, 64)
		l.comm = m[2]
		stack = stack[:len(stack)-1]
	}
	return stack, l
}

// splitFrames splits collapsed frames on ";", except inside the quoted
// command line of a py-spy process frame (python3 -c "a; b" is one frame).
func splitFrames(s string) []string {
	parts := strings.Split(s, ";")
	out := parts[:0]
	for i := 0; i < len(parts); i++ {
		f := parts[i]
		if strings.HasPrefix(f, "process ") && strings.Contains(f, `:"`) {
			for !strings.HasSuffix(f, `"`) && i+1 < len(parts) {
				i++
				f += ";" + parts[i]
			}
		}
		out = append(out, f)
	}
	return out
}

// parseCollapsedLine splits "a;b;c 12" into frames, leaf first, and 12.
func parseCollapsedLine(line string) ([]frame, int64, bool) {
	line = strings.TrimRight(line, " \t\r")
	sp := strings.LastIndexAny(line, " \t")
	if sp <= 0 {
		return nil, 0, false
	}
	count, err := strconv.ParseInt(line[sp+1:], 10, 64)
	if err != nil || count <= 0 {
		return nil, 0, false
	}
	names := splitFrames(strings.TrimSpace(line[:sp]))
	stack := make([]frame, 0, len(names))
	for i := len(names) - 1; i >= 0; i-- {
		stack = append(stack, parseCollapsedFrame(names[i]))
	}
	return stack, count, true
}

var (
	// pySpyFrame is py-spy's "name (path/file.py:12)".
	pySpyFrame = regexp.MustCompile(`^(.*) \(([^()]*):([0-9]+)\)$`)
	// rbSpyFrame is rbspy's "name - path/file.rb:12".
	rbSpyFrame = regexp.MustCompile(`^(.*) - (.+):([0-9]+)$`)
)

// rbSpyCFunc is rbspy's C-function frame, "NAME [c function] - (unknown)"
// or, when rbspy samples without pausing the process and cannot read the
// name, "(unknown) [c function] - (unknown)".
var rbSpyCFunc = regexp.MustCompile(`^(.*) \[c function\](?: - .*)?$`)

func parseCollapsedFrame(s string) frame {
	s = strings.TrimSpace(s)
	if m := rbSpyCFunc.FindStringSubmatch(s); m != nil {
		// Named "[c function]" (a bracketed pseudo frame, not user code)
		// so its cost is charged to the Ruby method that called it.
		if m[1] == "" || m[1] == "(unknown)" {
			return frame{name: "[c function]"}
		}
		return frame{name: "[c function] " + m[1]}
	}
	for _, re := range []*regexp.Regexp{pySpyFrame, rbSpyFrame} {
		if m := re.FindStringSubmatch(s); m != nil && m[1] != "" {
			line, _ := strconv.ParseInt(m[3], 10, 64)
			return frame{name: m[1], file: m[2], line: line}
		}
	}
	if s == "" {
		s = "[unknown]"
	}
	return frame{name: s}
}
