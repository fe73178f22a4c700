package demo

import (
	"bytes"
	"image/color"
	"image/png"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func httptestRecorder(a *app, method, target string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	a.routes().ServeHTTP(rec, httptest.NewRequest(method, target, strings.NewReader("")))
	return rec
}

// TestRenderCacheRebuildsAtMostOncePerInterval paints a pixel and checks
// the fixed build serves the cached image until rebuildInterval has passed
// since the last build, then the new one.
func TestRenderCacheRebuildsAtMostOncePerInterval(t *testing.T) {
	g := newGridRenderer(newGridStore(gridWidth, gridHeight), true)
	first, err := g.renderGridCached()
	if err != nil {
		t.Fatal(err)
	}
	red := color.RGBA{255, 0, 0, 255}
	g.store.set(3, 4, red)
	if again, _ := g.renderGridCached(); !bytes.Equal(again, first) {
		t.Errorf("rebuilt within %v of the last build", rebuildInterval)
	}
	g.mu.Lock()
	g.lastBuild = time.Now().Add(-rebuildInterval) // as if the interval had passed
	g.mu.Unlock()
	after, _ := g.renderGridCached()
	img, err := png.Decode(bytes.NewReader(after))
	if err != nil {
		t.Fatal(err)
	}
	if got := color.RGBAModel.Convert(img.At(3, 4)); got != red {
		t.Errorf("pixel (3,4) after rebuild = %v; want %v", got, red)
	}
	planted, _ := renderGridUncached(g.store)
	if !bytes.Equal(planted, after) {
		t.Errorf("cached PNG differs from a fresh encode")
	}
	same, _ := g.renderGridCached()
	if &same[0] != &after[0] {
		t.Errorf("unchanged grid was re-encoded")
	}
}
