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

// startSpyIdle starts recording every thread of a Python service, idle
// ones included, beside the CPU profile: the wall-clock stacks that name
// what a request waits on. It returns once py-spy samples; nil when it
// cannot (one warning).
func (p *profileSet) startSpyIdle(ctx context.Context) *capture.SpyRecording {
	rec, err := capture.StartPySpyIdle(ctx, p.s.proc.PID(), p.s.cfg.PerfHz, len(p.s.proc.PIDs()) > 1)
	if err != nil {
		p.s.warn("py-spy --idle: " + err.Error() + ": no off-CPU stacks, no time split per request (the CPU profile is not affected)")
		return nil
	}
	return rec
}

// spyIdle stops the recording once the window is over (a little after:
// past its end no request runs) and keeps its stacks.
func (p *profileSet) spyIdle(ctx context.Context, rec *capture.SpyRecording, window time.Duration) {
	select {
	case <-time.After(window + 250*time.Millisecond):
	case <-ctx.Done():
	}
	prof, err := rec.Stop()
	if err != nil {
		p.s.warn("py-spy --idle: " + err.Error() + ": no off-CPU stacks, no time split per request (the CPU profile is not affected)")
		return
	}
	p.mu.Lock()
	p.idle = prof
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
	// py-spy sampled from before the load started to after it ended: every
	// request of the window is in it, and no other.
	requests := s.run.Load.Requests
	t := &runfmt.TimePerRequest{Source: ProfilerPySpy, Seconds: s.run.Load.DurationS, Requests: requests,
		IdleMs: float64(idleNs) / 1e6 / float64(requests)}
	t.Kinds = analysis.TimeKinds(wall, requests, s.userCode())
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
