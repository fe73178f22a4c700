package capture

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"perflab/internal/runfmt"
)

// Goroutines reads every goroutine's stack from base's net/http/pprof
// endpoint (/debug/pprof/goroutine?debug=2, the text a panic or SIGQUIT
// prints), within timeout, and parses it as it arrives: at most
// MaxSnapshotBytes are read. pid is recorded as the process it describes.
func (c *Client) Goroutines(ctx context.Context, base string, pid int, timeout time.Duration) (*Snapshot, error) {
	u, err := endpointURL(base, EndpointGoroutine, "debug=2")
	if err != nil {
		return nil, err
	}
	start := time.Now()
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %w", u, err)
	}
	resp, err := c.http().Do(req)
	if err != nil {
		return nil, transportError(ctx, u, timeout, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || looksHTML(nil, resp.Header) {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		if resp.StatusCode == http.StatusOK {
			return nil, fmt.Errorf("%s returned an HTML page, not a goroutine dump: %w", u, ErrNoEndpoint)
		}
		return nil, statusError(u, resp, body)
	}
	s, err := ParseGoroutines(resp.Body)
	if err != nil {
		if rctx.Err() != nil {
			return s, bodyError(ctx, u, timeout, rctx.Err())
		}
		return s, fmt.Errorf("reading goroutines from %s: %w", u, err)
	}
	s.PID, s.Elapsed = pid, time.Since(start)
	return s, nil
}

// ParseGoroutines reads a Go goroutine dump: the goroutine profile with
// debug=2, a panic's or SIGQUIT's output (GOTRACEBACK=all, system or
// crash; register dumps and other lines between goroutines are skipped).
// At most MaxSnapshotBytes are read, lines are cut at 64 KiB and a
// goroutine keeps 128 frames. The Snapshot holds what was read even with
// an error.
func ParseGoroutines(r io.Reader) (*Snapshot, error) { return parseGoroutines(r, defaultLimits) }

func parseGoroutines(r io.Reader, l limits) (*Snapshot, error) {
	s := &Snapshot{Source: runfmt.StackSourcePprof, maxThreads: l.threads}
	lr := newLineReader(r, l)
	var g *Thread
	var fn string // a frame's function, waiting for its file line
	flush := func() {
		if g != nil {
			s.add(*g)
		}
		g, fn = nil, ""
	}
	for line := range lr.lines() {
		if h, ok := goroutineHeader(line); ok {
			flush()
			g = h
			continue
		}
		if g == nil {
			continue
		}
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "\t"):
			if fn != "" {
				file, n := goFileLine(line)
				g.addFrame(fn, file, n)
				fn = ""
			}
		case strings.HasPrefix(line, "created by "):
			fn = line
		case strings.HasSuffix(line, ")") && !strings.HasPrefix(line, "..."):
			fn = goFunction(line)
		}
	}
	flush()
	return lr.finish(s)
}

// goroutineHeader reads a goroutine's first line, "goroutine 18
// [sync.Mutex.Lock, 2 minutes, locked to thread]:", with what
// GOTRACEBACK=crash adds before the bracket ("gp=0x… m=nil"). Read by
// hand, as the other lines are: a dump may hold a hundred thousand.
func goroutineHeader(line string) (*Thread, bool) {
	rest, ok := strings.CutPrefix(line, "goroutine ")
	if !ok || !strings.HasSuffix(rest, "]:") {
		return nil, false
	}
	id, _, _ := strings.Cut(rest, " ")
	open := strings.IndexByte(rest, '[')
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || open < 0 {
		return nil, false
	}
	g := &Thread{ID: n}
	parts := strings.Split(rest[open+1:len(rest)-2], ", ")
	g.State = parts[0]
	for _, p := range parts[1:] {
		if n, ok := strings.CutSuffix(p, " minutes"); ok {
			g.WaitMinutes, _ = strconv.Atoi(n)
		} else if p == "1 minute" {
			g.WaitMinutes = 1
		}
	}
	return g, true
}

// addFrame adds the frame named by fn (or the "created by" line) at file:n.
func (g *Thread) addFrame(fn, file string, n int) {
	if rest, ok := strings.CutPrefix(fn, "created by "); ok {
		name, _, _ := strings.Cut(rest, " in goroutine ")
		g.CreatedBy = &Frame{Function: name, File: file, Line: n}
		return
	}
	if len(g.Frames) < maxThreadFrames {
		g.Frames = append(g.Frames, Frame{Function: fn, File: file, Line: n})
	}
}

// goFunction cuts the argument list off a frame's line:
// "main.(*store).Put(0xc0001, {0x6d, 0x3})" -> "main.(*store).Put". The
// list is the parenthesised group that ends the line; names hold
// parentheses of their own.
func goFunction(line string) string {
	if i := matchingParen(line); i >= 0 {
		return line[:i]
	}
	return line
}

// goFileLine reads a frame's location line:
// "\t/src/store.go:88 +0x6d fp=0x… sp=0x… pc=0x…".
func goFileLine(line string) (string, int) {
	loc := strings.TrimSpace(line)
	if i := strings.Index(loc, " +0x"); i >= 0 {
		loc = loc[:i]
	} else if i := strings.Index(loc, " fp="); i >= 0 {
		loc = loc[:i]
	}
	return splitFileLine(loc)
}
