package walltime

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
)

// The trace formats this build reads: Go 1.11 to 1.21 (converted by the
// parser) and 1.22 to 1.26. A newer Go writes a format the parser may not
// know; golang.org/x/exp/trace is upgraded with each Go release.
const (
	newestMinor = 26
)

// knownMinors are the header versions golang.org/x/exp/trace reads.
var knownMinors = map[int]bool{11: true, 19: true, 21: true, 22: true, 23: true, 25: true, 26: true}

// ErrNotTrace is a file that is not a Go execution trace.
var ErrNotTrace = errors.New("not a Go execution trace")

// ErrVersion is a trace of a Go version whose format this build cannot read.
var ErrVersion = errors.New("trace format not supported")

var headerRE = regexp.MustCompile(`^go 1\.([0-9]+) trace\x00\x00\x00$`)

// readHeader checks the trace's 16-byte header ("go 1.26 trace\0\0\0") and
// returns its Go minor version and a reader positioned at its start.
func readHeader(r io.Reader) (int, *bufio.Reader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, err := br.Peek(16)
	if err != nil && len(head) == 0 {
		return 0, nil, fmt.Errorf("reading the execution trace: %w (the file is empty)", ErrNotTrace)
	}
	m := headerRE.FindSubmatch(head)
	if m == nil {
		return 0, nil, fmt.Errorf("reading the execution trace: %w: it starts with %q, want \"go 1.N trace\"", ErrNotTrace, printable(head))
	}
	minor, _ := strconv.Atoi(string(m[1]))
	if !knownMinors[minor] {
		hint := "this build reads Go 1.11 to 1.26 traces"
		if minor > newestMinor {
			hint += ": upgrade perflab (its golang.org/x/exp/trace) for newer Go versions"
		}
		return 0, nil, fmt.Errorf("reading the execution trace: %w: Go 1.%d (%s)", ErrVersion, minor, hint)
	}
	return minor, br, nil
}

func printable(b []byte) string {
	out := make([]rune, 0, len(b))
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			c = '.'
		}
		out = append(out, rune(c))
	}
	return string(out)
}
