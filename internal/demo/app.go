package demo

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync/atomic"
)

// app holds the demo's data and serves its endpoints.
type app struct {
	fixed     bool
	catalogue *catalogue
	grid      *gridRenderer
	items     map[int]*Item
	batch     []byte // the built-in log batch of GET /ingest
	tail      *tailBuffer
	next      atomic.Uint64
}

func newApp(fixed bool) *app {
	return &app{
		fixed:     fixed,
		catalogue: newCatalogue(catalogueSize),
		grid:      newGridRenderer(newGridStore(gridWidth, gridHeight), fixed),
		items:     newItems(itemCount),
		batch:     newLogBatch(logBatchLines),
		tail:      newTailBuffer(tailSize),
	}
}

func (a *app) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", a.handleMixed)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	mux.HandleFunc("GET /search", a.handleSearch)
	mux.HandleFunc("GET /render", a.handleRender)
	mux.HandleFunc("GET /api/item", a.handleItem)
	mux.HandleFunc("GET /ingest", a.handleIngest)
	mux.HandleFunc("POST /ingest", a.handleIngest)
	return mux
}

// mixedQueries are the search terms GET / cycles through.
var mixedQueries = []string{"steel", "blue lamp", "pro", "oak", "mini", "graphite"}

// handleMixed serves GET /: each request is the next endpoint in turn, so
// one URL exercises every planted cost.
func (a *app) handleMixed(w http.ResponseWriter, r *http.Request) {
	n := a.next.Add(1) - 1
	switch n % 4 {
	case 0:
		a.serveSearch(w, mixedQueries[(n/4)%uint64(len(mixedQueries))])
	case 1:
		a.serveRender(w)
	case 2:
		a.serveItem(w, 1+int(n/4)%itemCount)
	default:
		a.serveIngest(w, a.batch)
	}
}

func (a *app) handleItem(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(r.URL.Query().Get("id"))
	if err != nil {
		http.Error(w, "id must be an integer 1.."+strconv.Itoa(itemCount), http.StatusBadRequest)
		return
	}
	a.serveItem(w, id)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v) // a client that went away

}
