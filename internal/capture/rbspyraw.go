package capture

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/google/pprof/profile"
)

// rbspyRawMagic starts rbspy's raw recordings (the version 2 format: a
// header line of JSON, then one JSON stack trace per line).
const rbspyRawMagic = "rbspy02"

// maxRbspyRawBytes bounds the decompressed recording read (a minute of
// several workers at 100 Hz is tens of megabytes).
const maxRbspyRawBytes = 1 << 30

// rbspyTrace is one sample of an rbspy raw recording. Only the fields
// perflab reads are declared; rbspy writes more (time, thread_id).
type rbspyTrace struct {
	Trace []struct {
		Name         string  `json:"name"`
		RelativePath string  `json:"relative_path"`
		AbsolutePath *string `json:"absolute_path"`
		Lineno       *int64  `json:"lineno"`
	} `json:"trace"`
	PID   int64 `json:"pid"`
	OnCPU *bool `json:"on_cpu"`
}

// ParseRbspyRaw reads an rbspy raw recording (gzipped, as rbspy
// --raw-file writes it) into a CPU profile like ParseCollapsed's, each
// sample worth periodNanos and labelled with its process's pid: the
// collapsed output rbspy also writes loses which process a stack came from,
// which a pre-fork server's profile needs. Samples marked off-CPU
// (on_cpu false) are left out; recordings without the mark keep them all.
func ParseRbspyRaw(r io.Reader, periodNanos int64) (*profile.Profile, error) {
	if periodNanos <= 0 {
		return nil, fmt.Errorf("parsing rbspy recording: period %dns: must be more than 0", periodNanos)
	}
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("parsing rbspy recording: %w", err)
	}
	br := bufio.NewReader(io.LimitReader(zr, maxRbspyRawBytes))
	magic := make([]byte, len(rbspyRawMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != rbspyRawMagic {
		return nil, fmt.Errorf("parsing rbspy recording: not an %s recording", rbspyRawMagic)
	}
	b := newBuilder(periodNanos)
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64<<10), maxPerfLine)
	for first := true; sc.Scan(); {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if first { // the header: sample rate, version, start time
			first = false
			if bytes.Contains(line, []byte(`"sample_rate"`)) {
				continue
			}
		}
		var t rbspyTrace
		if err := json.Unmarshal(line, &t); err != nil {
			return nil, fmt.Errorf("parsing rbspy recording: %w", err)
		}
		if (t.OnCPU != nil && !*t.OnCPU) || len(t.Trace) == 0 {
			continue
		}
		stack := make([]frame, 0, len(t.Trace))
		for _, f := range t.Trace {
			path := f.RelativePath
			if f.AbsolutePath != nil && *f.AbsolutePath != "" {
				path = *f.AbsolutePath
			}
			s := f.Name + " - " + path
			if f.Lineno != nil {
				s += ":" + strconv.FormatInt(*f.Lineno, 10)
			}
			stack = append(stack, parseCollapsedFrame(s)) // rbspy's collapsed frame, read one way
		}
		b.add(stack, 1, periodNanos, labels{pid: t.PID, tid: 0})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading rbspy recording: %w", err)
	}
	return b.profile(), nil
}
