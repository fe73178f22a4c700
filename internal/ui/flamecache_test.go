package ui

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"perflab/internal/analysis"
)

// TestFlameCache: a profile drawn again the same way is served from the
// cache; a profile written again, or drawn with other options, is drawn
// again; beyond the bound the least recently used page goes.
func TestFlameCache(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.pb.gz"), filepath.Join(dir, "b.pb.gz")
	writeProfile(t, a, cpuProfile("main.search", 4e9))
	writeProfile(t, b, cpuProfile("main.render", 4e9))
	c := newFlameCache(flameCacheBytes)
	draw := func(path string, opt analysis.FlameOptions) []byte {
		t.Helper()
		page, err := c.page(path, opt)
		if err != nil {
			t.Fatal(err)
		}
		return page
	}
	opt := analysis.FlameOptions{Title: "a", Requests: 1000}
	first := draw(a, opt)
	if again := draw(a, opt); &again[0] != &first[0] {
		t.Error("the same profile drawn the same way was drawn again")
	}
	if other := draw(a, analysis.FlameOptions{Title: "a", Requests: 2000}); &other[0] == &first[0] {
		t.Error("other options were served the cached page")
	}
	writeProfile(t, a, cpuProfile("main.other", 4e9))
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(a, later, later); err != nil {
		t.Fatal(err)
	}
	if redrawn := draw(a, opt); &redrawn[0] == &first[0] {
		t.Error("a profile written again was served its old page")
	}
	// A bound of about one page keeps only the most recent.
	small := newFlameCache(int64(len(first)) + 100)
	c = small
	pa := draw(a, opt)
	draw(b, opt)
	if again := draw(a, opt); &again[0] == &pa[0] {
		t.Error("a page beyond the bound was kept")
	}
	if len(small.pages) != 1 || small.size > small.max {
		t.Errorf("%d pages, %d bytes kept; want 1 within %d", len(small.pages), small.size, small.max)
	}
	if _, err := c.page(filepath.Join(dir, "missing.pb.gz"), opt); err == nil {
		t.Error("a missing profile drew a page")
	}
}
