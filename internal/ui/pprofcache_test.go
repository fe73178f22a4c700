package ui

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingOpen is a pprofViews.open that counts the parses per path and,
// for a path in block, waits until the channel is closed.
type countingOpen struct {
	mu    sync.Mutex
	opens map[string]int
	block map[string]chan struct{}
}

func (c *countingOpen) open(path string, _ []string) (map[string]http.Handler, error) {
	c.mu.Lock()
	c.opens[path]++
	wait := c.block[path]
	c.mu.Unlock()
	if wait != nil {
		<-wait
	}
	return map[string]http.Handler{"/": http.NotFoundHandler()}, nil
}

func (c *countingOpen) count(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opens[path]
}

func profileFiles(t *testing.T, n int) []string {
	t.Helper()
	dir := t.TempDir()
	var out []string
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("p%d.pb.gz", i))
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// TestPprofViewsParseOnceEach: a profile being parsed holds up only the
// requests for it (the UI held one lock over every parse), and concurrent
// first requests parse it once.
func TestPprofViewsParseOnceEach(t *testing.T) {
	files := profileFiles(t, 2)
	slow, quick := files[0], files[1]
	c := &countingOpen{opens: map[string]int{}, block: map[string]chan struct{}{slow: make(chan struct{})}}
	v := &pprofViews{open: c.open}
	var wg sync.WaitGroup
	var served atomic.Int64
	for range 3 {
		wg.Go(func() {
			if _, err := v.handler(slow); err == nil {
				served.Add(1)
			}
		})
	}
	done := make(chan error, 1)
	go func() { _, err := v.handler(quick); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the quick profile waited for the slow one's parse")
	}
	close(c.block[slow])
	wg.Wait()
	if served.Load() != 3 || c.count(slow) != 1 {
		t.Errorf("slow profile: %d of 3 requests served, %d parses; want 3 and 1", served.Load(), c.count(slow))
	}
}

// TestPprofViewsBounded: beyond maxPprofViews profiles the least recently
// viewed is dropped (parsed again when viewed again); a rewritten file is
// parsed again.
func TestPprofViewsBounded(t *testing.T) {
	files := profileFiles(t, maxPprofViews+1)
	c := &countingOpen{opens: map[string]int{}}
	v := &pprofViews{open: c.open}
	for _, f := range files {
		if _, err := v.handler(f); err != nil {
			t.Fatal(err)
		}
	}
	last := files[len(files)-1]
	v.handler(last)
	v.handler(files[0])
	if c.count(last) != 1 || c.count(files[0]) != 2 {
		t.Errorf("parses: newest %d, oldest %d; want 1 (kept) and 2 (dropped, parsed again)", c.count(last), c.count(files[0]))
	}
	if err := os.WriteFile(last, []byte("rewritten"), 0o644); err != nil {
		t.Fatal(err)
	}
	v.handler(last)
	if c.count(last) != 2 {
		t.Errorf("a rewritten profile parsed %d times; want 2", c.count(last))
	}
	v.mu.Lock()
	n := len(v.views)
	v.mu.Unlock()
	if n > maxPprofViews {
		t.Errorf("%d parsed profiles kept; want at most %d", n, maxPprofViews)
	}
}
