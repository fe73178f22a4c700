package ui

import (
	"bytes"
	"container/list"
	"fmt"
	"os"
	"sync"

	"perflab/internal/analysis"
)

// flameCacheBytes bounds the flame graph pages the UI keeps: a run's page
// and its flame graph pages are drawn from profiles that take seconds to
// decode when large (a 28 MB profile), and are looked at again and again.
const flameCacheBytes = 64 << 20

// flameCache keeps drawn flame graph pages, least recently used dropped
// first beyond max bytes. A page is keyed by its profile's path, size and
// modification time and the drawing's options, so a profile written again
// is drawn again.
type flameCache struct {
	mu    sync.Mutex
	max   int64
	size  int64
	order *list.List // of *flamePage, most recent first
	pages map[flameKey]*list.Element
}

type flameKey struct {
	path        string
	size        int64
	modNanos    int64
	title       string
	sampleIndex string
	requests    int64
	scale       float64
	minFraction float64
	leaves      int // how many leaf names split the sample type (FlameOptions.Leaves)
}

type flamePage struct {
	key  flameKey
	html []byte
}

func newFlameCache(max int64) *flameCache {
	return &flameCache{max: max, order: list.New(), pages: map[flameKey]*list.Element{}}
}

// page returns the flame graph page of the profile at path drawn with opt,
// from the cache when the same file was drawn the same way. The UI draws a
// run's profile with that run's ownership model, which does not change: the
// file's path, size and time stand for it.
func (c *flameCache) page(path string, opt analysis.FlameOptions) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	key := flameKey{path: path, size: st.Size(), modNanos: st.ModTime().UnixNano(),
		title: opt.Title, sampleIndex: opt.SampleIndex, requests: opt.Requests, scale: opt.Scale, minFraction: opt.MinFraction, leaves: len(opt.Leaves)}
	if html, ok := c.get(key); ok {
		return html, nil
	}
	var b bytes.Buffer
	if err := analysis.WriteFlameHTMLFile(&b, path, opt); err != nil {
		return nil, err
	}
	c.put(key, b.Bytes())
	return b.Bytes(), nil
}

func (c *flameCache) get(k flameKey) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.pages[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*flamePage).html, true
}

// put keeps a page (two requests that drew the same page keep one), then
// drops the least recently used beyond the bound; a page larger than the
// whole bound is not kept.
func (c *flameCache) put(k flameKey, html []byte) {
	if int64(len(html)) > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.pages[k]; ok {
		c.order.MoveToFront(el)
		return
	}
	c.pages[k] = c.order.PushFront(&flamePage{key: k, html: html})
	c.size += int64(len(html))
	for c.size > c.max {
		el := c.order.Back()
		p := el.Value.(*flamePage)
		c.order.Remove(el)
		delete(c.pages, p.key)
		c.size -= int64(len(p.html))
	}
}
