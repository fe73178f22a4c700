// Package demo is the service that `perflab demo` profiles: a small HTTP
// API with real per-request work and planted costs modelled on the case
// studies perflab is built from.
//
// # Endpoints
//
//	GET  /search?q=term   catalogue search; planted: strings.ToLower of every
//	                      item name on every search (searchLowerEachTime)
//	GET  /render          PNG of a pixel grid read from a row store; planted:
//	                      rows re-read and png.Encode'd per request (renderGridUncached)
//	GET  /api/item?id=N   JSON of a large item; planted: a leftover debug
//	                      fmt.Fprintln of the whole item (debugPrintItem)
//	POST /ingest          log-line parsing, body = lines of key=value fields
//	GET  /ingest          the same on a built-in batch; planted: allocation-heavy
//	                      parsing that makes the GC a large share of CPU (parseLogLinesNaive)
//	GET  /                one of the above per request, round-robin, dispatched
//	                      through the mux so a profile shows that endpoint's handler
//	GET  /healthz         "ok"
//
// With Config.Fixed the planted costs are removed (the "fixed build"):
// names are lowercased once at startup, the encoded PNG is cached and
// rebuilt at most once per second when the grid changes, the debug print
// is gone, and ingest parses without per-field allocations. Responses are
// the same in both modes.
//
// net/http/pprof is served on a separate listener and mux (PprofURL), never
// on http.DefaultServeMux.
//
// `perflab demo` loads the four endpoints as four targets ([LoadPaths]), so
// the load's per-target figures and the CPU per handler each show one
// planted cost.
//
// Main runs the service as a process (`perflab demo-service`).
package demo
