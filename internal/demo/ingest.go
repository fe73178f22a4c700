package demo

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// logBatchLines is the number of log lines in the built-in batch of GET /ingest.
const logBatchLines = 300

// maxIngestBody bounds a POST /ingest body.
const maxIngestBody = 4 << 20

// ingestSummary is the JSON body of /ingest: what the batch contained.
type ingestSummary struct {
	Lines      int            `json:"lines"`
	Malformed  int            `json:"malformed"`
	ServerErrs int            `json:"server_errors"`
	Levels     map[string]int `json:"levels"`
	TotalMs    float64        `json:"total_duration_ms"`
}

// newLogBatch builds log lines of space-separated key=value fields.
func newLogBatch(n int) []byte {
	var b strings.Builder
	levels := []string{"info", "info", "info", "warn", "error"}
	for i := range n {
		fmt.Fprintf(&b, "ts=2024-05-01T12:%02d:%02dZ level=%s method=GET path=/api/item/%d status=%d dur_ms=%d.%d user=u%d region=eu-west-%d trace=%016x\n",
			i/60%60, i%60, levels[i%len(levels)], i, []int{200, 200, 404, 500}[i%4], i%97, i%10, i*31, i%3, uint64(i)*0x9e3779b97f4a7c15)
	}
	return []byte(b.String())
}

func (a *app) handleIngest(w http.ResponseWriter, r *http.Request) {
	body := a.batch
	if r.Method == http.MethodPost {
		var err error
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, maxIngestBody))
		if err != nil {
			http.Error(w, "reading body: "+err.Error(), http.StatusBadRequest)
			return
		}
	}
	a.serveIngest(w, body)
}

func (a *app) serveIngest(w http.ResponseWriter, body []byte) {
	if a.fixed {
		sum, recs := parseLogLinesLean(body)
		a.tail.addLean(recs)
		writeJSON(w, sum)
	} else {
		sum, recs := parseLogLinesNaive(string(body))
		a.tail.add(recs)
		writeJSON(w, sum)
	}
}

// logRecord is one parsed line in the naive parser.
type logRecord struct {
	fields     map[string]string
	normalized string
	status     int
	durMs      float64
}

// parseLogLinesNaive is the planted cost: it splits into new strings at
// every level, builds a map and a concatenated string per line, and keeps
// every record, so the allocation rate keeps the GC busy.
func parseLogLinesNaive(body string) (ingestSummary, []*logRecord) {
	sum := ingestSummary{Levels: map[string]int{}}
	var records []*logRecord
	for _, line := range strings.Split(body, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		rec := &logRecord{fields: map[string]string{}}
		for _, field := range strings.Split(line, " ") {
			kv := strings.SplitN(field, "=", 2)
			if len(kv) != 2 {
				continue
			}
			rec.fields[strings.Clone(kv[0])] = strings.Clone(kv[1])
			rec.normalized = rec.normalized + strings.ToUpper(kv[0]) + ":" + kv[1] + ";"
		}
		records = append(records, rec)
	}
	for _, rec := range records {
		var err1, err2 error
		rec.status, err1 = strconv.Atoi(rec.fields["status"])
		rec.durMs, err2 = strconv.ParseFloat(rec.fields["dur_ms"], 64)
		sum.add(rec.fields["level"], rec.status, rec.durMs, err1 == nil && err2 == nil)
	}
	return sum, records
}

// parseLogLinesLean is the fix: it walks the body once and only slices
// it, allocating nothing per line.
func parseLogLinesLean(body []byte) (ingestSummary, []leanRecord) {
	sum := ingestSummary{Levels: map[string]int{}}
	var recs []leanRecord
	rest := string(body) // one copy of the body; every field below is a substring
	for len(rest) > 0 {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if strings.TrimSpace(line) == "" {
			continue
		}
		var level, status, dur string
		for line != "" {
			var field string
			field, line, _ = strings.Cut(line, " ")
			k, v, ok := strings.Cut(field, "=")
			switch {
			case !ok:
			case k == "level":
				level = v
			case k == "status":
				status = v
			case k == "dur_ms":
				dur = v
			}
		}
		st, err1 := strconv.Atoi(status)
		d, err2 := strconv.ParseFloat(dur, 64)
		sum.add(level, st, d, err1 == nil && err2 == nil)
		recs = append(recs, leanRecord{level: internLevel(level), status: st, durMs: d})
	}
	return sum, recs
}

func (s *ingestSummary) add(level string, status int, durMs float64, ok bool) {
	s.Lines++
	if !ok {
		s.Malformed++
		return
	}
	if status >= 500 {
		s.ServerErrs++
	}
	s.Levels[level]++
	s.TotalMs += durMs
}
