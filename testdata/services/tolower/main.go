// Command tolower serves GET /search?q=term over 5000 item names. In
// -mode=buggy main.search lowercases every name on every search; in
// -mode=fixed the names are lowercased once at startup (main.searchLowered).
package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"

	"perflab/testdata/services/svc"
)

const items = 5000

func main() {
	os.Exit(svc.Run(svc.Service{Name: "tolower", Handler: handler}, os.Args[1:], os.Stdout, os.Stderr))
}

func handler(buggy bool) (http.Handler, error) {
	words := []string{"Red", "Green", "Steel", "Lamp", "Chair", "Desk", "Pro", "Mini", "Oak", "Kettle"}
	names := make([]string, items)
	lowered := make([]string, items)
	for i := range names {
		names[i] = fmt.Sprintf("%s %s %s Item Number %05d With A Longer Title", words[i%10], words[i/10%10], words[i/100%10], i)
		lowered[i] = strings.ToLower(names[i])
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := strings.ToLower(r.URL.Query().Get("q"))
		var n int
		if buggy {
			n = search(names, q)
		} else {
			n = searchLowered(lowered, q)
		}
		json.NewEncoder(w).Encode(map[string]any{"query": q, "count": n})
	}), nil
}

// search is the planted cost: strings.ToLower of every name per search.
func search(names []string, q string) int {
	n := 0
	for _, name := range names {
		if strings.Contains(strings.ToLower(name), q) {
			n++
		}
	}
	return n
}

// searchLowered is the fix: the names were lowercased at startup.
func searchLowered(lowered []string, q string) int {
	n := 0
	for _, name := range lowered {
		if strings.Contains(name, q) {
			n++
		}
	}
	return n
}
