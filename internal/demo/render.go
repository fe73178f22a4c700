package demo

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"sync"
	"time"
)

// The grid GET /render draws, in pixels.
const gridWidth, gridHeight = 160, 160

// pixelRow is one row of the pixel table, as a database would return it.
type pixelRow struct {
	X, Y int
	C    color.RGBA
}

// gridStore is the pixel "database": a table of rows plus a version that
// changes on every write.
type gridStore struct {
	mu      sync.RWMutex
	w, h    int
	rows    []pixelRow
	version uint64
}

func newGridStore(w, h int) *gridStore {
	s := &gridStore{w: w, h: h}
	for y := range h {
		for x := range w {
			// Regions of colour with some texture, like a shared canvas.
			c := color.RGBA{uint8(x * 255 / w), uint8((x ^ y) * 7), uint8(y * 255 / h), 255}
			if (x/20+y/20)%3 == 0 {
				c = color.RGBA{240, 240, 230, 255}
			}
			s.rows = append(s.rows, pixelRow{x, y, c})
		}
	}
	return s
}

// loadImage reads every row into a new image, like a SELECT of the table.
func (s *gridStore) loadImage() (*image.RGBA, uint64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	img := image.NewRGBA(image.Rect(0, 0, s.w, s.h))
	for _, r := range s.rows {
		img.SetRGBA(r.X, r.Y, r.C)
	}
	return img, s.version
}

func (s *gridStore) currentVersion() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.version
}

// gridRenderer turns the store into PNG bytes.
type gridRenderer struct {
	store *gridStore
	fixed bool

	mu        sync.Mutex
	png       []byte
	version   uint64
	lastBuild time.Time
}

// rebuildInterval bounds how often the fixed build re-encodes the grid.
const rebuildInterval = time.Second

func newGridRenderer(s *gridStore, fixed bool) *gridRenderer {
	return &gridRenderer{store: s, fixed: fixed}
}

func (a *app) handleRender(w http.ResponseWriter, _ *http.Request) { a.serveRender(w) }

func (a *app) serveRender(w http.ResponseWriter) {
	var b []byte
	var err error
	if a.grid.fixed {
		b, err = a.grid.renderGridCached()
	} else {
		b, err = renderGridUncached(a.grid.store)
	}
	if err != nil {
		http.Error(w, "rendering grid: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Write(b)
}

// renderGridUncached is the planted cost: every request reads all rows and
// encodes a new PNG (the case study's GetGrid + png.Encode).
func renderGridUncached(s *gridStore) ([]byte, error) {
	img, _ := s.loadImage()
	var buf bytes.Buffer
	err := png.Encode(&buf, img)
	return buf.Bytes(), err
}

// renderGridCached is the fix: serve the cached PNG, and rebuild it at
// most once per rebuildInterval, only when the grid has changed.
func (g *gridRenderer) renderGridCached() ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	stale := g.png == nil || (g.store.currentVersion() != g.version && time.Since(g.lastBuild) >= rebuildInterval)
	if stale {
		img, v := g.store.loadImage()
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			return nil, err
		}
		g.png, g.version, g.lastBuild = buf.Bytes(), v, time.Now()
	}
	return g.png, nil
}
