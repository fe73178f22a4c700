package service

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCloseLogWaitsForALateCopier: the service has exited and its last
// line sits in the pipe, which a process that escaped the group still
// holds open, while the copier has not run yet (perflab starved of CPU).
// Stopping keeps the line: the pipe is closed only once it is empty.
func TestCloseLogWaitsForALateCopier(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close() // the escaped writer's end, open throughout
	path := filepath.Join(t.TempDir(), "target.log")
	log, err := newLogSink(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := &Process{logPipe: pr, logDone: make(chan struct{}), log: log}
	if _, err := pw.Write([]byte("downstream calls: 12 waits, mean 20.4 ms\n")); err != nil {
		t.Fatal(err)
	}
	late := time.AfterFunc(1500*time.Millisecond, func() { go p.copyLog(64 << 10) }) // after closeLog's first second
	defer late.Stop()
	start := time.Now()
	if err := p.closeLog(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "downstream calls") {
		t.Errorf("target.log holds %q; want the service's last line, which the pipe held when the service stopped", b)
	}
	if took := time.Since(start); took > logDrainMax+2*time.Second {
		t.Errorf("closeLog took %s; want it bounded by %s", took, logDrainMax)
	}
}
