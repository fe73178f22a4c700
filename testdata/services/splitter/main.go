// Command splitter serves GET /totals?doc=N&cols=a,b,...: the totals of
// some columns of a 64 KiB CSV document (1024 rows of 16 short fields, 16
// documents built at start), scaled by an optional ?scale=X. A request
// without a scale (as the tests send) makes a small error value with
// fmt.Errorf (main.parseScale: about 250 bytes), which the handler reads
// as "no scale", as handlers that validate optional input do. In
// -mode=buggy main.columnTotal splits the whole document into rows and
// every row into its fields with strings.Split, once per column asked
// (about 270 KiB allocated per column: 1.1 MiB for 4); in -mode=fixed
// main.columnTotalSeq walks it with strings.SplitSeq and strings.Cut,
// allocating nothing. Responses are identical. GET /row?doc=N&row=M
// answers one row's fields from the documents kept parsed (16 Ki rows of
// strings live on the heap, which every collection marks).
package main

import (
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"

	"perflab/testdata/services/svc"
)

const (
	docs    = 16
	rows    = 1024
	columns = 16
)

var header = []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p"}

func main() {
	os.Exit(svc.Run(svc.Service{Name: "splitter", Handler: handler}, os.Args[1:], os.Stdout, os.Stderr))
}

func handler(buggy bool) (http.Handler, error) {
	documents := make([]string, docs)
	for d := range documents {
		var b strings.Builder
		for r := range rows {
			for c := range columns {
				if c > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, "%03d", (d*7+r*13+c*31)%1000)
			}
			b.WriteByte('\n')
		}
		documents[d] = b.String()
	}
	parsed := make([][][]string, docs)
	for d, doc := range documents {
		for row := range strings.SplitSeq(strings.TrimSuffix(doc, "\n"), "\n") {
			parsed[d] = append(parsed[d], strings.Split(row, ","))
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /row", func(w http.ResponseWriter, r *http.Request) {
		d, err1 := strconv.Atoi(r.URL.Query().Get("doc"))
		n, err2 := strconv.Atoi(r.URL.Query().Get("row"))
		if err1 != nil || err2 != nil || d < 0 || d >= docs || n < 0 || n >= rows {
			http.Error(w, "doc: want 0 to 15, row: 0 to 1023", http.StatusBadRequest)
			return
		}
		fmt.Fprintln(w, strings.Join(parsed[d][n], ","))
	})
	mux.HandleFunc("GET /totals", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		d, err := strconv.Atoi(q.Get("doc"))
		if err != nil || d < 0 || d >= docs {
			http.Error(w, "doc: want 0 to 15", http.StatusBadRequest)
			return
		}
		scale, err := parseScale(q.Get("scale"))
		if err != nil {
			scale = 1
		}
		var totals []string
		for _, col := range strings.Split(q.Get("cols"), ",") {
			i := columnIndex(col)
			if i < 0 {
				http.Error(w, fmt.Sprintf("cols: no column %q (a to p)", col), http.StatusBadRequest)
				return
			}
			total := 0
			if buggy {
				total = columnTotal(documents[d], i)
			} else {
				total = columnTotalSeq(documents[d], i)
			}
			totals = append(totals, fmt.Sprintf("%q:%g", col, float64(total)*scale))
		}
		fmt.Fprintf(w, "{\"doc\":%d,\"totals\":{%s}}\n", d, strings.Join(totals, ","))
	})
	return mux, nil
}

// parseScale reads the optional scale; its error value, made for every
// request that gives none, is the small allocation beside the split's.
func parseScale(s string) (float64, error) {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("scale %q: want a number such as 0.5 or 2, the factor every total is multiplied by (default 1): %w", s, err)
	}
	return x, nil
}

func columnIndex(col string) int {
	for i, h := range header {
		if h == col {
			return i
		}
	}
	return -1
}

// columnTotal is the planted cost: the whole document split into rows,
// and each row into its fields, to read one column.
func columnTotal(doc string, col int) int {
	total := 0
	for _, row := range strings.Split(doc, "\n") {
		if row == "" {
			continue
		}
		n, _ := strconv.Atoi(strings.Split(row, ",")[col])
		total += n
	}
	return total
}

// columnTotalSeq is the fix: the same walk without building slices.
func columnTotalSeq(doc string, col int) int {
	total := 0
	for row := range strings.SplitSeq(doc, "\n") {
		if row == "" {
			continue
		}
		field := row
		for range col {
			_, field, _ = strings.Cut(field, ",")
		}
		field, _, _ = strings.Cut(field, ",")
		n, _ := strconv.Atoi(field)
		total += n
	}
	return total
}
