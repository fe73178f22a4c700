package demo

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// itemCount is the number of items GET /api/item serves (ids 1..itemCount).
const itemCount = 50

// Item is the large record GET /api/item returns, like a message from an
// upstream cache.
type Item struct {
	ID           int               `json:"id"`
	SKU          string            `json:"sku"`
	Name         string            `json:"name"`
	Description  string            `json:"description"`
	Attributes   map[string]string `json:"attributes"`
	Tags         []string          `json:"tags"`
	Stock        []StockLevel      `json:"stock"`
	PriceHistory []PricePoint      `json:"price_history"`
	Reviews      []Review          `json:"reviews"`
	Related      []int             `json:"related"`
	// Thumbnail is image bytes from the upstream store (base64 in JSON).
	Thumbnail []byte `json:"thumbnail"`
}

// thumbnailSize is the size of an item's thumbnail in bytes.
const thumbnailSize = 16 << 10

// StockLevel is an item's stock in one warehouse.
type StockLevel struct {
	Warehouse string `json:"warehouse"`
	Quantity  int    `json:"quantity"`
	Reserved  int    `json:"reserved"`
}

// PricePoint is a past price of an item.
type PricePoint struct {
	At    time.Time `json:"at"`
	Cents int64     `json:"cents"`
	Sale  bool      `json:"sale"`
}

// Review is a customer review.
type Review struct {
	Author  string    `json:"author"`
	Rating  int       `json:"rating"`
	Text    string    `json:"text"`
	Helpful int       `json:"helpful"`
	At      time.Time `json:"at"`
}

func newItems(n int) map[int]*Item {
	rng := rand.New(rand.NewPCG(2, 2))
	items := make(map[int]*Item, n)
	for id := 1; id <= n; id++ {
		items[id] = newItem(rng, id)
	}
	return items
}

func newItem(rng *rand.Rand, id int) *Item {
	epoch := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	it := &Item{ID: id, SKU: fmt.Sprintf("SKU-%06d", id*7919%1000000),
		Name:        fmt.Sprintf("%s %s %d", pick(rng, adjectives), pick(rng, nouns), id),
		Description: "A dependable everyday item with a long description that nobody reads in full.",
		Attributes:  map[string]string{}}
	for i := range 40 {
		it.Attributes["attr_"+strconv.Itoa(i)] = pick(rng, adjectives)
		it.Tags = append(it.Tags, pick(rng, nouns))
		it.Related = append(it.Related, rng.IntN(10000))
	}
	it.Thumbnail = make([]byte, thumbnailSize)
	for i := range it.Thumbnail {
		it.Thumbnail[i] = byte(rng.IntN(256))
	}
	for i := range 12 {
		it.Stock = append(it.Stock, StockLevel{"wh-" + strconv.Itoa(i), rng.IntN(500), rng.IntN(20)})
	}
	for i := range 60 {
		it.PriceHistory = append(it.PriceHistory, PricePoint{epoch.Add(time.Duration(i) * 24 * time.Hour), 1000 + rng.Int64N(9000), i%7 == 0})
		it.Reviews = append(it.Reviews, Review{"user" + strconv.Itoa(rng.IntN(1e5)), 1 + rng.IntN(5),
			"Works as described.", rng.IntN(100), epoch.Add(time.Duration(i) * time.Hour)})
	}
	return it
}

func (a *app) serveItem(w http.ResponseWriter, id int) {
	it, ok := a.items[id]
	if !ok {
		http.Error(w, fmt.Sprintf("no item %d (ids are 1..%d)", id, itemCount), http.StatusNotFound)
		return
	}
	if !a.fixed {
		debugPrintItem(it)
	}
	writeJSON(w, it)
}

// debugPrintItem is the planted cost: a debug print of the whole item left
// in after debugging (the case study's fmt.Println of a protobuf that
// carried file bytes). Its output goes nowhere, but fmt still formats every
// field by reflection and every thumbnail byte as a decimal number.
//
// It is never inlined, so every profiler (perf too) names it.
//
//go:noinline
func debugPrintItem(it *Item) {
	fmt.Fprintln(io.Discard, "item", it.ID, *it)
}
