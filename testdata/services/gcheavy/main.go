// Command gcheavy serves GET /parse (a built-in batch of log records) and
// POST /parse (the body): it parses "key=value" records and keeps the most
// recent ones in memory. In -mode=buggy main.parseRecord allocates per
// field (splits, a map, strconv and concatenated strings), so at the
// default GOGC the garbage collector takes well over 20% of the CPU, like
// the case study's log parser. In -mode=fixed main.parseRecordLean only
// slices the line. GET /gcstats reports the GC's share of CPU from
// runtime/metrics.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"

	"perflab/testdata/services/svc"
)

// batchLines is the size of the built-in batch; keep is how many parsed
// records stay live (the live heap the GC has to mark each cycle).
const batchLines, keep = 200, 40000

func main() {
	os.Exit(svc.Run(svc.Service{Name: "gcheavy", Handler: handler}, os.Args[1:], os.Stdout, os.Stderr))
}

// record is a parsed log line.
type record struct {
	Fields   map[string]string
	Tokens   *token
	Customer string
	Key      string
	Status   int
}

// token is one field of a line, in a linked list.
type token struct {
	Key, Value string
	Next       *token
}

// leanRecord is the fixed build's parsed line: no per-field allocations.
type leanRecord struct {
	Level    string
	Customer int
	Status   int
}

type server struct {
	buggy  bool
	batch  string
	mu     sync.Mutex
	recent []*record
	lean   []leanRecord
	next   int
}

func handler(buggy bool) (http.Handler, error) {
	var b strings.Builder
	for i := range batchLines {
		fmt.Fprintf(&b, "ts=%d level=%s customer=%d status=%d path=/v1/logs/%d region=eu-%d app=shop subsystem=api-%d\n",
			1700000000+i, []string{"info", "warn", "error"}[i%3], i*37%1000, []int{200, 404, 500}[i%3], i, i%4, i%9)
	}
	s := &server{buggy: buggy, batch: b.String(), recent: make([]*record, keep), lean: make([]leanRecord, keep)}
	mux := http.NewServeMux()
	mux.HandleFunc("/parse", s.parse)
	mux.HandleFunc("GET /gcstats", gcStats)
	return mux, nil
}

func (s *server) parse(w http.ResponseWriter, r *http.Request) {
	body := s.batch
	if r.Method == http.MethodPost {
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 4<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = string(b)
	}
	errs, n := 0, 0
	for line := range strings.Lines(body) {
		n++
		if s.buggy {
			rec := parseRecord(line)
			errs += boolInt(rec.Status >= 500)
			s.store(rec, leanRecord{})
		} else {
			rec := parseRecordLean(line)
			errs += boolInt(rec.Status >= 500)
			s.store(nil, rec)
		}
	}
	json.NewEncoder(w).Encode(map[string]int{"records": n, "server_errors": errs})
}

func (s *server) store(rec *record, lean leanRecord) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rec != nil {
		s.recent[s.next] = rec
	} else {
		s.lean[s.next] = lean
	}
	s.next = (s.next + 1) % keep
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// parseRecord is the planted cost: every field becomes new strings and a
// map entry, and the customer id is formatted into a new string per line.
func parseRecord(line string) *record {
	rec := &record{Fields: map[string]string{}}
	for _, f := range strings.Fields(string([]byte(line))) { // a defensive copy of the line
		kv := strings.SplitN(f, "=", 2)
		if len(kv) == 2 {
			rec.Fields[strings.ToLower(kv[0])] = strings.Clone(kv[1])
			rec.Tokens = &token{Key: strings.Clone(kv[0]), Value: strings.Clone(kv[1]), Next: rec.Tokens}
			rec.Key += kv[0] + "|"
		}
	}
	id, _ := strconv.Atoi(rec.Fields["customer"])
	rec.Customer = "customer-" + strconv.Itoa(id)
	rec.Status, _ = strconv.Atoi(rec.Fields["status"])
	return rec
}

// parseRecordLean is the fix: it slices the line and keeps only what it
// needs, without per-field allocations.
func parseRecordLean(line string) leanRecord {
	var rec leanRecord
	for f := range strings.FieldsSeq(line) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "level":
			rec.Level = internLevel(v)
		case "customer":
			rec.Customer, _ = strconv.Atoi(v)
		case "status":
			rec.Status, _ = strconv.Atoi(v)
		}
	}
	return rec
}

// internLevel returns a constant for known levels so a kept record does
// not pin the request body.
func internLevel(v string) string {
	for _, l := range []string{"info", "warn", "error"} {
		if v == l {
			return l
		}
	}
	return "other"
}

// gcStats serves the GC's share of the process's CPU time since start,
// from runtime/metrics (the runtime's own estimate).
func gcStats(w http.ResponseWriter, _ *http.Request) {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/cpu/classes/total:cpu-seconds"}, {Name: "/cpu/classes/idle:cpu-seconds"}}
	metrics.Read(s)
	gc, total, idle := s[0].Value.Float64(), s[1].Value.Float64(), s[2].Value.Float64()
	pct := 0.0
	if busy := total - idle; busy > 0 {
		pct = 100 * gc / busy
	}
	json.NewEncoder(w).Encode(map[string]float64{"gc_cpu_pct": pct, "gc_cpu_seconds": gc, "busy_cpu_seconds": total - idle})
}
