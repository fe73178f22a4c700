// Command gomash serves GET /price?sku=N from a settings tree of 200
// regions x 10 SKUs. In -mode=buggy each request wraps the whole tree in a
// new Mash (a Hashie::Mash-like object: keys normalised, nested maps
// converted to Mash on construction) to read one price: main.NewMash owns
// the cost, spread over deepUpdate, convertKey, convertValue, customWriter
// and respondTo, none of which is the culprit on its own. In -mode=fixed the
// Mash is built once at start-up. Both answer the same price.
package main

import (
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"

	"perflab/testdata/services/svc"
)

func main() {
	os.Exit(svc.Run(svc.Service{Name: "gomash", Handler: handler}, os.Args[1:], os.Stdout, os.Stderr))
}

// settingsTree is the raw configuration: region -> sku -> fields.
func settingsTree() map[string]any {
	tree := make(map[string]any, 200)
	for r := range 200 {
		region := make(map[string]any, 10)
		for s := range 10 {
			region["SKU_"+strconv.Itoa(s)] = map[string]any{"Price": (r*10+s)*3 + 7, "Currency": "EUR"}
		}
		tree["Region_"+strconv.Itoa(r)] = region
	}
	return tree
}

func handler(buggy bool) (http.Handler, error) {
	tree := settingsTree()
	var built *Mash
	if !buggy {
		built = NewMash(tree)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sku, err := strconv.Atoi(r.URL.Query().Get("sku"))
		if err != nil || sku < 0 {
			http.Error(w, "sku: want a non-negative integer", http.StatusBadRequest)
			return
		}
		settings := built
		if buggy {
			settings = NewMash(tree)
		}
		fmt.Fprintln(w, price(settings, sku))
	}), nil
}

// price reads one entry of the settings.
func price(m *Mash, sku int) string {
	entry := m.Get("region_" + strconv.Itoa(sku%200)).(*Mash).Get("sku_" + strconv.Itoa(sku%10)).(*Mash)
	return strconv.Itoa(entry.Get("price").(int)) + " " + entry.Get("currency").(string)
}

// Mash wraps a settings map: keys lower-cased, nested maps converted to
// Mash on construction.
type Mash struct {
	table map[string]any
}

// NewMash is the planted cost when called per request: it converts the
// whole tree, key by key.
//
//go:noinline
func NewMash(src map[string]any) *Mash {
	m := &Mash{table: make(map[string]any, len(src))}
	m.deepUpdate(src)
	return m
}

// Get returns the value under key, or nil.
func (m *Mash) Get(key string) any { return m.table[convertKey(key)] }

//go:noinline
func (m *Mash) deepUpdate(src map[string]any) {
	for k, v := range src {
		key := convertKey(k)
		if m.respondTo(key) {
			if sub, ok := m.table[key].(*Mash); ok {
				if nested, ok := v.(map[string]any); ok {
					sub.deepUpdate(nested)
					continue
				}
			}
		}
		m.customWriter(key, convertValue(v))
	}
}

// convertKey normalises a key: trimmed, lower case.
//
//go:noinline
func convertKey(k string) string {
	return strings.ToLower(strings.TrimSpace(k))
}

// convertValue turns nested maps into Mash.
//
//go:noinline
func convertValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return NewMash(t)
	case string:
		return strings.Clone(t)
	}
	return v
}

//go:noinline
func (m *Mash) customWriter(key string, v any) {
	m.table[key] = v
}

// respondTo reports whether the Mash has key (or it names a method).
//
//go:noinline
func (m *Mash) respondTo(key string) bool {
	if _, ok := m.table[key]; ok {
		return true
	}
	return strings.HasPrefix(key, "get") || strings.HasPrefix(key, "set")
}
