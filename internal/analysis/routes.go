package analysis

import "strings"

// routeFinder finds a Python web framework's request handler in a stack:
// the view function its router dispatched the request to (a Flask view,
// a Django view, a FastAPI endpoint). Below the framework's dispatch
// frame, the handler is the first user function, so a library's
// decorators and class-based views' plumbing between the two are not taken
// for it; when no user function is below, the dispatch frame's callee is.
// The server's and framework's own work on a request (gunicorn reading
// and writing it, Flask's routing, Django's middleware) is under a
// request frame but no handler.
type routeFinder struct {
	dispatch, request, user []bool
	framework               string
}

// frameRule names a framework's function by its name (or the name's
// last dotted parts) and a part of its file's path.
type frameRule struct {
	framework, file, name string
}

// viewDispatch frames hand a request to the application's handler.
var viewDispatch = []frameRule{
	{"Flask", "flask/", "Flask.dispatch_request"},
	{"Django", "django/core/handlers/", "BaseHandler._get_response"},
	{"Django", "django/core/handlers/", "BaseHandler._get_response_async"},
	{"FastAPI", "fastapi/", "run_endpoint_function"},
}

// requestFrames run for one request, around the dispatch, besides the
// servers' per-request entry points the wall-time view knows
// (dispatchFrames): a gunicorn worker's handling of a connection (its
// parsing of the request included), werkzeug's, uvicorn's parsing, and
// the frameworks' entry points.
var requestFrames = []frameRule{
	{"", "gunicorn/workers/", "handle"},
	{"", "werkzeug/serving", "WSGIRequestHandler.handle"},
	{"", "uvicorn/protocols/http/", "data_received"},
	{"", "flask/", "Flask.wsgi_app"},
	{"", "django/core/handlers/", "WSGIHandler.__call__"},
	{"", "django/core/handlers/", "ASGIHandler.handle"},
}

// matches says fn in file is the rule's function.
func (r frameRule) matches(fn, file string) bool {
	return strings.Contains(file, r.file) && (fn == r.name || strings.HasSuffix(fn, "."+r.name))
}

// newRouteFinder returns nil when no frame of the profile is a known
// framework's dispatch.
func newRouteFinder(c *Costs) *routeFinder {
	n := len(c.set.Funcs)
	h := &routeFinder{dispatch: make([]bool, n), request: make([]bool, n), user: c.user}
	for i, f := range c.set.Funcs {
		for _, r := range viewDispatch {
			if r.matches(f.Name, f.File) {
				h.dispatch[i], h.request[i] = true, true
				if h.framework == "" {
					h.framework = r.framework
				}
			}
		}
		h.request[i] = h.request[i] || isDispatch(f.Name, f.File)
		for _, r := range requestFrames {
			h.request[i] = h.request[i] || r.matches(f.Name, f.File)
		}
	}
	if h.framework == "" {
		return nil
	}
	return h
}

// handler returns the index in st (leaf first) of the request's handler
// frame, or -1 when st is not under a dispatch frame.
func (h *routeFinder) handler(st []int32) int {
	d := outermostIn(st, h.dispatch)
	if d <= 0 {
		return -1
	}
	for i := d - 1; i >= 0; i-- {
		if h.user[st[i]] {
			return i
		}
	}
	return d - 1
}

// inRequest says st ran inside a request's handling.
func (h *routeFinder) inRequest(st []int32) bool {
	for _, f := range st {
		if h.request[f] {
			return true
		}
	}
	return false
}

func (h *routeFinder) dispatchName() string { return h.framework }
