package lab

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"perflab/internal/analysis"
	"perflab/internal/capture"
	"perflab/internal/runfmt"
)

// spyIdle records every thread of a Python service, idle ones included,
// beside the CPU profile: the wall-clock stacks that name what a request
// waits on.
func (p *profileSet) spyIdle(ctx context.Context, seconds float64) {
	prof, err := capture.PySpyIdleRecord(ctx, p.s.proc.PID(), seconds, p.s.cfg.PerfHz)
	if err != nil {
		if ctx.Err() == nil {
			p.s.warn("py-spy --idle: " + err.Error() + ": no off-CPU stacks, no time split per request (the CPU profile is not affected)")
		}
		return
	}
	end := time.Now() // py-spy samples until just before it exits
	p.mu.Lock()
	p.idle, p.idleEnd = prof, end
	p.mu.Unlock()
	p.saveAs("idle", ProfilerPySpy, nil, prof)
}

// analyseSpyWall turns the idle-inclusive stacks and the CPU profile into
// the time per request and its wall-time profile.
func (s *session) analyseSpyWall() {
	p := s.prof
	if p == nil || p.idle == nil || p.cpu == nil || s.run.Load == nil || s.run.Load.Requests <= 0 {
		return
	}
	var cpuNs int64
	if t := s.run.Target; t != nil {
		cpuNs = int64(t.CPUSeconds * 1e9)
	}
	wall, idleNs, ok := analysis.SpyWall(p.idle, p.cpu, cpuNs, newSourceLines().line)
	if !ok {
		s.warn("py-spy --idle: no thread was serving a request in a server perflab knows (http.server, wsgiref, gunicorn, uvicorn): no time split per request")
		return
	}
	// The requests completed while py-spy sampled: it starts a little
	// after the window and may end after it, when no request runs.
	secs := float64(p.idle.DurationNanos) / 1e9
	endS := p.idleEnd.Sub(p.from).Seconds()
	requests := requestsIn(s.run.Load.Series, endS-secs, endS)
	if requests <= 0 {
		return
	}
	t := &runfmt.TimePerRequest{Source: ProfilerPySpy, StartS: max(0, endS-secs), Seconds: min(secs, s.run.Load.DurationS), Requests: requests,
		IdleMs: float64(idleNs) / 1e6 / float64(requests)}
	t.Kinds = analysis.TimeKinds(wall, requests)
	for _, k := range t.Kinds {
		t.TotalMs += k.MsPerRequest
	}
	if rel, ok := p.saveWall("wall", wall, ProfilerPySpy); ok {
		t.Profile = rel
	}
	p.spyWall = wall
	s.run.Time = t
}

// sourceLines reads lines of the service's source files for
// analysis.SpyWall, each file once and at most 4 MiB of it.
type sourceLines struct {
	files map[string][]string
}

func newSourceLines() *sourceLines { return &sourceLines{files: map[string][]string{}} }

const maxSourceBytes = 4 << 20

func (sl *sourceLines) line(file string, n int64) string {
	if !filepath.IsAbs(file) || n <= 0 {
		return ""
	}
	lines, ok := sl.files[file]
	if !ok {
		if f, err := os.Open(file); err == nil {
			sc := bufio.NewScanner(io.LimitReader(f, maxSourceBytes))
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
			f.Close()
		}
		sl.files[file] = lines
	}
	if int(n) > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[n-1])
}
