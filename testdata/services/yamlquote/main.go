// Command yamlquote serves GET /quote?plan=N (0-299) from a pricing table
// kept as YAML. In -mode=buggy main.quote decodes the whole table (300
// plans of 6 fields) with gopkg.in/yaml.v3 on every request to read one
// plan's price: yaml.v3's parser and decoder do the work, reached through
// yaml.Unmarshal, and main.quote owns it. In -mode=fixed the table is
// decoded once at startup (main.quoteDecoded). Both answer the same.
package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"perflab/testdata/services/svc"
)

const plans = 300

// plan is one row of the pricing table.
type plan struct {
	Name     string   `yaml:"name"`
	Price    float64  `yaml:"price"`
	Currency string   `yaml:"currency"`
	Seats    int      `yaml:"seats"`
	Regions  []string `yaml:"regions"`
	Discount float64  `yaml:"discount"`
}

func main() {
	os.Exit(svc.Run(svc.Service{Name: "yamlquote", Handler: handler}, os.Args[1:], os.Stdout, os.Stderr))
}

func handler(buggy bool) (http.Handler, error) {
	doc := table()
	decoded, err := decodeTable(doc)
	if err != nil {
		return nil, fmt.Errorf("decoding the pricing table: %w", err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.URL.Query().Get("plan"))
		if err != nil || n < 0 || n >= plans {
			http.Error(w, "plan: want 0 to 299", http.StatusBadRequest)
			return
		}
		var p plan
		if buggy {
			p, err = quote(doc, n)
		} else {
			p = quoteDecoded(decoded, n)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"plan": p.Name, "price": p.Price * (1 - p.Discount), "currency": p.Currency})
	}), nil
}

// table is the pricing table as YAML.
func table() []byte {
	var b strings.Builder
	b.WriteString("plans:\n")
	for i := range plans {
		fmt.Fprintf(&b, "  - name: plan-%03d\n    price: %d.%02d\n    currency: EUR\n    seats: %d\n    regions: [eu-west, eu-central, us-east]\n    discount: 0.%02d\n",
			i, 10+i%90, i%100, 1+i%50, i%30)
	}
	return []byte(b.String())
}

// pricing is the document the table decodes into.
type pricing struct {
	Plans []plan `yaml:"plans"`
}

// quote is the planted cost: the whole table decoded to read one plan.
func quote(doc []byte, n int) (plan, error) {
	var t pricing
	if err := yaml.Unmarshal(doc, &t); err != nil {
		return plan{}, err
	}
	if n >= len(t.Plans) {
		return plan{}, fmt.Errorf("plan %d of %d", n, len(t.Plans))
	}
	return t.Plans[n], nil
}

// decodeTable decodes the table once, at startup.
func decodeTable(doc []byte) ([]plan, error) {
	var t pricing
	if err := yaml.Unmarshal(doc, &t); err != nil {
		return nil, err
	}
	if len(t.Plans) != plans {
		return nil, fmt.Errorf("%d plans; want %d", len(t.Plans), plans)
	}
	return t.Plans, nil
}

// quoteDecoded is the fix: the table was decoded once at startup.
func quoteDecoded(ps []plan, n int) plan { return ps[n] }
