package demo

import (
	"encoding/json"
	"net/http"
	"net/url"
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
	mux       *http.ServeMux // the routes, which GET / dispatches to
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
	a.mux = mux
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

// LoadPaths are the requests `perflab demo` sends, in round robin: one per
// endpoint, so the load's per-target figures and the CPU per handler each
// show one planted cost.
var LoadPaths = []string{"/search?q=steel", "/render", "/api/item?id=7", "/ingest"}

// handleMixed serves GET /: each request is the next endpoint in turn, so
// one URL exercises every planted cost. The request goes through the mux
// like a request for that endpoint, so a profile shows its real handler.
func (a *app) handleMixed(w http.ResponseWriter, r *http.Request) {
	n := a.next.Add(1) - 1
	var target string
	switch n % 4 {
	case 0:
		target = "/search?q=" + url.QueryEscape(mixedQueries[(n/4)%uint64(len(mixedQueries))])
	case 1:
		target = "/render"
	case 2:
		target = "/api/item?id=" + strconv.Itoa(1+int(n/4)%itemCount)
	default:
		target = "/ingest"
	}
	u, err := url.ParseRequestURI(target)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	r2 := r.Clone(r.Context())
	r2.URL, r2.RequestURI = u, target
	a.mux.ServeHTTP(w, r2)
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
