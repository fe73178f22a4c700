// Command gzipmw serves GET /catalog?page=N: a page of a product catalogue
// as JSON (about 1 KiB, marshalled once at start), through a gzip
// middleware that compresses every response whose request accepts gzip.
// In -mode=buggy the middleware builds a new gzip.Writer per response
// (main.gzipResponses); its first Write builds a new flate compressor
// (compress/flate.NewWriter allocates and clears some 800 KB of tables),
// which costs more than compressing the page. In -mode=fixed the writers
// come from a sync.Pool and are Reset for each response. Responses are
// identical.
package main

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"

	"perflab/testdata/services/svc"
)

const pages = 16

func main() {
	os.Exit(svc.Run(svc.Service{Name: "gzipmw", Handler: handler}, os.Args[1:], os.Stdout, os.Stderr))
}

func handler(buggy bool) (http.Handler, error) {
	catalogue, err := pagesOfJSON()
	if err != nil {
		return nil, err
	}
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.URL.Query().Get("page"))
		if err != nil || n < 0 || n >= pages {
			http.Error(w, "page: want 0 to 15", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(catalogue[n])
	})
	if buggy {
		return gzipResponses(api), nil
	}
	return gzipPooled(api), nil
}

// product is one catalogue entry.
type product struct {
	SKU         string   `json:"sku"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	PriceCents  int      `json:"price_cents"`
	Tags        []string `json:"tags"`
}

// pagesOfJSON marshals each page of 5 products once.
func pagesOfJSON() ([][]byte, error) {
	words := []string{"steel", "oak", "lamp", "chair", "desk", "kettle", "red", "green", "mini", "pro"}
	out := make([][]byte, pages)
	for p := range out {
		var ps []product
		for i := range 5 {
			k := p*5 + i
			ps = append(ps, product{SKU: fmt.Sprintf("SKU-%06d", k), Name: words[k%10] + " " + words[k/10%10],
				Description: strings.Repeat(words[k%7]+" "+words[k%3]+" ", 8), PriceCents: 100 + k*37%9000,
				Tags: []string{words[k%4], words[k%6], words[k%9]}})
		}
		b, err := json.Marshal(map[string]any{"page": p, "products": ps})
		if err != nil {
			return nil, fmt.Errorf("marshalling page %d: %w", p, err)
		}
		out[p] = b
	}
	return out, nil
}

// gzipWriter sends what the handler writes through a gzip.Writer.
type gzipWriter struct {
	http.ResponseWriter
	gz io.Writer
}

func (g *gzipWriter) Write(b []byte) (int, error) { return g.gz.Write(b) }

// acceptsGzip says the request accepts a gzip-encoded answer.
func acceptsGzip(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept-Encoding"), "gzip")
}

// gzipResponses is the planted cost: a new gzip.Writer per response.
func gzipResponses(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !acceptsGzip(r) {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Add("Vary", "Accept-Encoding")
		gz := gzip.NewWriter(w)
		defer gz.Close()
		next.ServeHTTP(&gzipWriter{ResponseWriter: w, gz: gz}, r)
	})
}

// gzipPooled is the fix: writers are kept in a pool and Reset per
// response.
func gzipPooled(next http.Handler) http.Handler {
	pool := sync.Pool{New: func() any { return gzip.NewWriter(io.Discard) }}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !acceptsGzip(r) {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Add("Vary", "Accept-Encoding")
		gz := pool.Get().(*gzip.Writer)
		gz.Reset(w)
		defer func() {
			gz.Close()
			pool.Put(gz)
		}()
		next.ServeHTTP(&gzipWriter{ResponseWriter: w, gz: gz}, r)
	})
}
