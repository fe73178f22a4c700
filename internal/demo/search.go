package demo

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
)

// catalogueSize is the number of items GET /search scans.
const catalogueSize = 5000

// maxResults caps the names a search returns (the count is always exact).
const maxResults = 20

// catalogue is the in-memory product list. lowerNames is what the fixed
// build searches: the names lowercased once, at startup.
type catalogue struct {
	names      []string
	lowerNames []string
}

var (
	adjectives = []string{"Brushed", "Steel", "Blue", "Oak", "Graphite", "Compact", "Mini", "Pro", "Ultra", "Vintage", "Matte", "Crimson"}
	nouns      = []string{"Lamp", "Desk", "Chair", "Kettle", "Speaker", "Backpack", "Monitor Arm", "Bookshelf", "Headphones", "Bottle"}
	suffixes   = []string{"Deluxe Edition", "XL", "for Home Office", "2-Pack", "with USB-C Charging", "Limited Series", "Refurbished"}
)

func newCatalogue(n int) *catalogue {
	rng := rand.New(rand.NewPCG(1, 1)) // fixed seed: same catalogue in every build
	c := &catalogue{}
	for i := range n {
		name := fmt.Sprintf("%s %s %s Model %04d-%s", pick(rng, adjectives), pick(rng, adjectives),
			pick(rng, nouns), i, pick(rng, suffixes))
		c.names = append(c.names, name)
		c.lowerNames = append(c.lowerNames, strings.ToLower(name))
	}
	return c
}

func pick(rng *rand.Rand, words []string) string { return words[rng.IntN(len(words))] }

// searchResult is the JSON body of GET /search.
type searchResult struct {
	Query string   `json:"query"`
	Count int      `json:"count"`
	Names []string `json:"names"`
}

func (a *app) handleSearch(w http.ResponseWriter, r *http.Request) {
	a.serveSearch(w, r.URL.Query().Get("q"))
}

func (a *app) serveSearch(w http.ResponseWriter, q string) {
	var idx []int
	if a.fixed {
		idx = searchPrelowered(a.catalogue, q)
	} else {
		idx = searchLowerEachTime(a.catalogue, q)
	}
	res := searchResult{Query: q, Count: len(idx), Names: []string{}}
	for _, i := range idx[:min(len(idx), maxResults)] {
		res.Names = append(res.Names, a.catalogue.names[i])
	}
	writeJSON(w, res)
}

// searchLowerEachTime is the planted cost: it lowercases every item name
// on every search (the case study's rssSearch).
func searchLowerEachTime(c *catalogue, q string) []int {
	q = strings.ToLower(q)
	var idx []int
	for i, name := range c.names {
		if strings.Contains(strings.ToLower(name), q) {
			idx = append(idx, i)
		}
	}
	return idx
}

// searchPrelowered is the fix: the names were lowercased at startup.
func searchPrelowered(c *catalogue, q string) []int {
	q = strings.ToLower(q)
	var idx []int
	for i, name := range c.lowerNames {
		if strings.Contains(name, q) {
			idx = append(idx, i)
		}
	}
	return idx
}
