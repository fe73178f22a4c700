package analysis

import "strings"

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
	dispatch, serve, user []bool
}

// dispatchRoot is where net/http hands a request to the server's handler.
const dispatchRoot = "net/http.serverHandler.ServeHTTP"

// newHandlerFinder returns nil when the profile has no net/http dispatch.
func newHandlerFinder(c *Costs) *handlerFinder {
	h := &handlerFinder{dispatch: make([]bool, len(c.set.Funcs)), serve: make([]bool, len(c.set.Funcs)), user: c.user}
	found := false
	for i, f := range c.set.Funcs {
		h.dispatch[i] = f.Name == dispatchRoot
		found = found || h.dispatch[i]
		h.serve[i] = strings.HasSuffix(f.Name, ".ServeHTTP") || strings.HasSuffix(f.Name, ".ServeHTTP-fm")
	}
	if !found {
		return nil
	}
	return h
}

// handler returns the index in st (leaf first) of the request's handler
// frame, or -1 when st is not under net/http's dispatch.
func (h *handlerFinder) handler(st []int32) int {
	d := -1
	for i := len(st) - 1; i >= 0; i-- {
		if h.dispatch[st[i]] {
			d = i
			break
		}
	}
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
	if userCand >= 0 {
		return userCand
	}
	return lastServe
}
