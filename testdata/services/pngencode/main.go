// Command pngencode serves GET /image: a PNG of a pixel grid kept in a
// file-backed table (written to a temp dir at startup, one fixed-size
// binary row per pixel: x, y as uint16 little-endian, then r, g, b, a). In -mode=buggy main.renderImage reads the table and
// png.Encodes it on every request; in -mode=fixed the encoded bytes are
// cached and rebuilt at most once per second when the file changes.
// POST /paint?x=&y= recolours a pixel (it rewrites the table).
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"perflab/testdata/services/svc"
)

// size is the grid's width and height; rowSize is one table row in bytes.
const size, rowSize = 128, 8

func main() {
	dir, err := os.MkdirTemp("", "pngencode-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "pngencode:", err)
		os.Exit(1)
	}
	code := svc.Run(svc.Service{Name: "pngencode", Handler: func(buggy bool) (http.Handler, error) {
		return handler(filepath.Join(dir, "pixels.table"), buggy)
	}}, os.Args[1:], os.Stdout, os.Stderr)
	os.RemoveAll(dir)
	os.Exit(code)
}

// table is the file-backed pixel table.
type table struct {
	mu   sync.RWMutex
	path string
	px   [size][size]color.RGBA
}

func handler(path string, buggy bool) (http.Handler, error) {
	t := &table{path: path}
	for y := range size {
		for x := range size {
			t.px[y][x] = color.RGBA{uint8(x * 2), uint8((x ^ y) * 5), uint8(y * 2), 255}
		}
	}
	if err := t.write(); err != nil {
		return nil, err
	}
	c := &cache{t: t}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /image", func(w http.ResponseWriter, r *http.Request) {
		var b []byte
		var err error
		if buggy {
			b, err = renderImage(t)
		} else {
			b, err = c.get()
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "image/png")
		w.Write(b)
	})
	mux.HandleFunc("POST /paint", func(w http.ResponseWriter, r *http.Request) {
		x, _ := strconv.Atoi(r.URL.Query().Get("x"))
		y, _ := strconv.Atoi(r.URL.Query().Get("y"))
		t.mu.Lock()
		t.px[y%size][x%size] = color.RGBA{255, 0, 0, 255}
		t.mu.Unlock()
		if err := t.write(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	return mux, nil
}

func (t *table) write() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := make([]byte, 0, size*size*rowSize)
	for y := range size {
		for x := range size {
			p := t.px[y][x]
			b = binary.LittleEndian.AppendUint16(b, uint16(x))
			b = binary.LittleEndian.AppendUint16(b, uint16(y))
			b = append(b, p.R, p.G, p.B, p.A)
		}
	}
	tmp := t.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("writing pixel table: %w", err)
	}
	return os.Rename(tmp, t.path)
}

// readImage reads every row of the table, like a SELECT of all pixels.
func (t *table) readImage() (*image.RGBA, error) {
	f, err := os.Open(t.path)
	if err != nil {
		return nil, fmt.Errorf("reading pixel table: %w", err)
	}
	defer f.Close()
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	r := bufio.NewReader(f)
	var row [rowSize]byte
	for {
		if _, err := io.ReadFull(r, row[:]); err == io.EOF {
			return img, nil
		} else if err != nil {
			return nil, fmt.Errorf("reading pixel table %s: %w", t.path, err)
		}
		x, y := int(binary.LittleEndian.Uint16(row[0:])), int(binary.LittleEndian.Uint16(row[2:]))
		img.SetRGBA(x, y, color.RGBA{row[4], row[5], row[6], row[7]})
	}
}

// renderImage is the planted cost: read the table and encode a PNG on
// every request.
func renderImage(t *table) ([]byte, error) {
	img, err := t.readImage()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	err = png.Encode(&buf, img)
	return buf.Bytes(), err
}

// cache is the fix: the encoded PNG, rebuilt at most once per second and
// only when the table file has changed.
type cache struct {
	t       *table
	mu      sync.Mutex
	png     []byte
	modTime time.Time
	built   time.Time
}

func (c *cache) get() ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.png != nil && time.Since(c.built) < time.Second {
		return c.png, nil
	}
	st, err := os.Stat(c.t.path)
	if err != nil {
		return nil, fmt.Errorf("reading pixel table: %w", err)
	}
	if c.png == nil || !st.ModTime().Equal(c.modTime) {
		b, err := renderImage(c.t)
		if err != nil {
			return nil, err
		}
		c.png, c.modTime = b, st.ModTime()
	}
	c.built = time.Now()
	return c.png, nil
}
