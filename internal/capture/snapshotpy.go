package capture

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"perflab/internal/runfmt"
)

// PySpyDump reads every Python thread's stack of pid with `py-spy dump
// --json` (py-spy 0.4 or later), which pauses the process while it reads
// it. ctx bounds the time it may take.
func PySpyDump(ctx context.Context, pid int) (*Snapshot, error) {
	return pySpyTool.snapshot(ctx, pid, ParsePySpyDump, "dump", "--pid", strconv.Itoa(pid), "--json", "--full-filenames")
}

// pySpyThread is one thread of `py-spy dump --json`.
type pySpyThread struct {
	ThreadID   uint64           `json:"thread_id"`
	Name       string           `json:"thread_name"`
	OSThreadID int              `json:"os_thread_id"`
	Active     bool             `json:"active"`
	Frames     []pySpyDumpFrame `json:"frames"`
}

type pySpyDumpFrame struct {
	Name     string `json:"name"`
	Filename string `json:"filename"`
	Line     int    `json:"line"`
}

// ParsePySpyDump reads the JSON `py-spy dump --json` prints: an array of
// threads, each with its frames innermost first. At most
// MaxSnapshotBytes are read; output cut there keeps the threads before
// the cut.
func ParsePySpyDump(r io.Reader) (*Snapshot, error) { return parsePySpyDump(r, defaultLimits) }

func parsePySpyDump(r io.Reader, l limits) (*Snapshot, error) {
	cr := &countingReader{r: io.LimitReader(r, l.bytes+1)}
	s := &Snapshot{Source: runfmt.StackSourcePySpy, maxThreads: l.threads}
	dec := json.NewDecoder(cr)
	err := readPySpyThreads(dec, s)
	s.Bytes = min(cr.n, l.bytes)
	if cr.n > l.bytes {
		s.Truncated, err = true, nil
	}
	if err == nil && len(s.Threads) == 0 {
		err = errNoThreads
	}
	return s, err
}

func readPySpyThreads(dec *json.Decoder, s *Snapshot) error {
	if tok, err := dec.Token(); err != nil {
		return fmt.Errorf("reading py-spy's JSON: %w", err)
	} else if tok != json.Delim('[') {
		return errors.New("py-spy's JSON is not an array of threads")
	}
	for dec.More() {
		var t pySpyThread
		if err := dec.Decode(&t); err != nil {
			return fmt.Errorf("reading py-spy's JSON: %w", err)
		}
		th := Thread{ID: int64(t.ThreadID), TID: t.OSThreadID, Name: t.Name, State: "idle"}
		if t.Active {
			th.State = "active"
		}
		for _, f := range t.Frames[:min(len(t.Frames), maxThreadFrames)] {
			th.Frames = append(th.Frames, Frame{Function: f.Name, File: f.Filename, Line: f.Line})
		}
		s.add(th)
	}
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
