package analysis

import (
	"slices"
	"strings"

	"perflab/internal/runfmt"
)

// requestFinder finds, in a stack (leaf first), the handler of the request
// it ran for: Go's net/http handlers (handlerFinder) or a Python web
// framework's views (routeFinder).
type requestFinder interface {
	// handler is the index in st of the request's handler frame, or -1.
	handler(st []int32) int
	// inRequest says st ran inside a request's handling (the server's or
	// the framework's own work on it), under a handler or not.
	inRequest(st []int32) bool
	// dispatchName names the dispatch whose handlers CPU is attributed to
	// (run.json's endpoints.dispatch).
	dispatchName() string
}

// newRequestFinder returns the finder of the profile's server, nil when
// the profile shows no dispatch perflab knows.
func newRequestFinder(c *Costs) requestFinder {
	if h := newHandlerFinder(c); h != nil {
		return h
	}
	if r := newRouteFinder(c); r != nil {
		return r
	}
	return nil
}

// handlerFinder finds a Go HTTP server's request handler in a stack: the
// user function net/http dispatched the request to. Below
// net/http.serverHandler.ServeHTTP, every frame named ServeHTTP dispatches
// to its callee (the server's mux, a router, middleware built from
// http.HandlerFunc); the handler is the deepest such callee that is user
// code, so routers and middleware above it are not taken for it, and a
// handler that itself calls a library's ServeHTTP (http.FileServer, a
// reverse proxy) keeps the request. Stacks of a handler that is not user
// code are charged to the library's deepest ServeHTTP.
type handlerFinder struct {
	dispatch, serve, router, user, conn []bool
}

// dispatchRoot is where net/http hands a request to the server's handler;
// connRoot serves a connection's requests (reads, dispatches and writes
// them).
const (
	dispatchRoot = "net/http.serverHandler.ServeHTTP"
	connRoot     = "net/http.(*conn).serve"
)

// newHandlerFinder returns nil when the profile has no net/http dispatch.
func newHandlerFinder(c *Costs) *handlerFinder {
	n := len(c.set.Funcs)
	h := &handlerFinder{dispatch: make([]bool, n), serve: make([]bool, n), router: make([]bool, n), conn: make([]bool, n), user: c.user}
	found := false
	for i, f := range c.set.Funcs {
		h.dispatch[i], h.conn[i] = f.Name == dispatchRoot, f.Name == connRoot
		found = found || h.dispatch[i]
		h.serve[i] = strings.HasSuffix(f.Name, ".ServeHTTP") || strings.HasSuffix(f.Name, ".ServeHTTP-fm")
		h.router[i] = h.serve[i] && isRouter(f.Name)
	}
	if !found {
		return nil
	}
	return h
}

// handler returns the index in st (leaf first) of the request's handler
// frame, or -1 when st is not under net/http's dispatch (or h is nil: no
// dispatch in the profile).
func (h *handlerFinder) handler(st []int32) int {
	if h == nil {
		return -1
	}
	d := outermostIn(st, h.dispatch)
	if d <= 0 {
		return -1
	}
	userCand, lastServe := -1, d
	for i := d; i > 0; i-- {
		if !h.serve[st[i]] {
			continue
		}
		lastServe = i
		if h.user[st[i-1]] {
			userCand = i - 1
		}
	}
	switch {
	case userCand >= 0:
		return userCand
	case h.router[st[lastServe]]:
		return -1 // the router's own work (matching the route, a 404): the request's handling, no handler's
	}
	return lastServe
}

// routerTypes are the receivers whose ServeHTTP picks a handler rather
// than being one: net/http's ServeMux and the common routers (chi's Mux,
// gorilla's Router, httprouter's Router, gin's and echo's engines).
var routerTypes = []string{"(*ServeMux).", "(*Mux).", "(*Router).", "(*Engine).", "(*Echo)."}

// isRouter says whether a ServeHTTP frame is a router's.
func isRouter(fn string) bool {
	return slices.ContainsFunc(routerTypes, func(t string) bool { return strings.Contains(fn, t) })
}

// inRequest says st ran serving a connection's requests.
func (h *handlerFinder) inRequest(st []int32) bool {
	for _, f := range st {
		if h.conn[f] || h.dispatch[f] {
			return true
		}
	}
	return false
}

func (h *handlerFinder) dispatchName() string { return runfmt.DispatchNetHTTP }

// outermostIn returns the index in st (leaf first) of its outermost frame
// in set, or -1.
func outermostIn(st []int32, set []bool) int {
	for i := len(st) - 1; i >= 0; i-- {
		if set[st[i]] {
			return i
		}
	}
	return -1
}
