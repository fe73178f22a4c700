package ui

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"perflab/internal/files"
	"perflab/internal/runfmt"
)

// runSummary is what the index shows of a run: a few fields of its
// run.json. Decoding only these (encoding/json skips the rest: the series,
// hot functions and source lines that make up most of a run.json) and
// keeping them while the file is unchanged lets the index list a thousand
// runs in well under the time it takes to read them all in full. The
// fields that hold vocabulary words are decoded too, so that a run.json
// runfmt.Read refuses for a word this perflab does not know is listed as
// unreadable, with the field.
type runSummary struct {
	ID            string
	Err           string
	SchemaVersion int                  `json:"schema_version"`
	Name          string               `json:"name"`
	Started       time.Time            `json:"started"`
	Status        string               `json:"status"`
	PartialReason string               `json:"partial_note"`
	Degradations  []runfmt.Degradation `json:"degradations"`
	// OldPartialReason and OldDegraded are the keys of runs before
	// schema 5 (see runfmt's oldkeys.go).
	OldPartialReason string   `json:"partial_reason"`
	OldDegraded      []string `json:"degraded_reasons"`
	Load             *struct {
		RPS          float64           `json:"rps"`
		Requests     int64             `json:"requests"`
		Errors       int64             `json:"errors"`
		ErrorKinds   map[string]int64  `json:"error_kinds"`
		ErrorSamples map[string]string `json:"error_samples"`
		Latency      struct {
			P99 float64 `json:"p99"`
		} `json:"latency_ms"`
	} `json:"load"`
	// Answer ranks the findings: its row leads with the first
	// (report.LeadFinding). Without one (a run stored before it), Target,
	// Quality and Ledger say which verdict the run answers.
	Answer    *runfmt.Answer         `json:"answer"`
	Target    *runfmt.TargetSummary  `json:"target"`
	Findings  []runfmt.Finding       `json:"findings"`
	Profiles  []runfmt.ProfileRef    `json:"profiles"`
	Time      *runfmt.TimePerRequest `json:"time_per_request"`
	Profiling *runfmt.Profiling      `json:"profiling"`
	Quality   *runfmt.Quality        `json:"quality"`
	Ledger    *runfmt.Ledger         `json:"ledger"`
}

// cpuMs is the run's CPU per request, 0 when not measured.
func (r *runSummary) cpuMs() float64 {
	if r.Target == nil {
		return 0
	}
	return r.Target.CPUMsPerRequest
}

// p99 is the run's p99 latency, 0 without a load.
func (r *runSummary) p99() float64 {
	if r.Load == nil || r.Load.Requests == 0 {
		return 0
	}
	return r.Load.Latency.P99
}

// runList reads run summaries of a run directory, keeping each while its
// run.json keeps its size and modification time.
type runList struct {
	root  string
	mu    sync.Mutex
	cache map[string]cachedSummary
}

type cachedSummary struct {
	mod  time.Time
	size int64
	sum  *runSummary
}

// list returns the summaries of every run in the directory, newest first.
func (l *runList) list() ([]*runSummary, error) {
	des, err := os.ReadDir(l.root)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	type job struct {
		i       int
		id, dir string
		st      os.FileInfo
	}
	out := make([]*runSummary, 0, len(des))
	var todo []job
	l.mu.Lock()
	if l.cache == nil {
		l.cache = map[string]cachedSummary{}
	}
	seen := map[string]bool{}
	for _, de := range des {
		if !de.IsDir() || strings.HasPrefix(de.Name(), ".") {
			continue
		}
		id := de.Name()
		seen[id] = true
		dir := filepath.Join(l.root, id)
		st, err := os.Stat(filepath.Join(dir, runfmt.FileName))
		if err != nil {
			out = append(out, &runSummary{ID: id, Err: err.Error()})
			continue
		}
		if c, ok := l.cache[id]; ok && c.mod.Equal(st.ModTime()) && c.size == st.Size() {
			out = append(out, c.sum)
			continue
		}
		todo = append(todo, job{len(out), id, dir, st})
		out = append(out, nil)
	}
	for id := range l.cache {
		if !seen[id] {
			delete(l.cache, id)
		}
	}
	l.mu.Unlock()
	// Read the changed ones on every core.
	var wg sync.WaitGroup
	next := make(chan job)
	for range min(runtime.GOMAXPROCS(0), max(len(todo), 1)) {
		wg.Go(func() {
			for j := range next {
				out[j.i] = readSummary(j.id, j.dir)
			}
		})
	}
	for _, j := range todo {
		next <- j
	}
	close(next)
	wg.Wait()
	l.mu.Lock()
	for _, j := range todo {
		if out[j.i].Err == "" {
			l.cache[j.id] = cachedSummary{j.st.ModTime(), j.st.Size(), out[j.i]}
		}
	}
	l.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out, nil
}

// readSummary decodes the summary of the run in dir, checking its schema
// as runfmt.Read does.
func readSummary(id, dir string) *runSummary {
	s := &runSummary{ID: id}
	path := filepath.Join(dir, runfmt.FileName)
	if _, err := within(dir, path); errors.Is(err, errOutside) {
		s.Err = runfmt.FileName + " is a link out of the run directory"
		return s
	}
	f, err := files.Open(path, runfmt.MaxFileBytes)
	if err != nil {
		s.Err = err.Error()
		return s
	}
	defer f.Close()
	err = runfmt.Decode(files.LimitReader(f, runfmt.MaxFileBytes, path), s)
	fe := (*runfmt.FieldError)(nil)
	switch {
	case errors.As(err, &fe) && s.SchemaVersion <= runfmt.SchemaVersion:
		return &runSummary{ID: id, Err: runfmt.FileName + ": " + fe.Error()}
	case err != nil && fe == nil:
		return &runSummary{ID: id, Err: "decoding run.json: " + err.Error()}
	case s.SchemaVersion > runfmt.SchemaVersion:
		return &runSummary{ID: id, Err: "run.json has a newer schema than this perflab understands: upgrade perflab"}
	case s.SchemaVersion < 1:
		return &runSummary{ID: id, Err: "run.json has no schema_version: not a perflab run"}
	}
	if s.PartialReason == "" {
		s.PartialReason = s.OldPartialReason
	}
	if s.Degradations == nil {
		for _, d := range s.OldDegraded {
			s.Degradations = append(s.Degradations, runfmt.Degradation{Note: d})
		}
	}
	return s
}

// run is the part of the run the summary holds, for report's words.
func (r *runSummary) run() *runfmt.Run {
	out := &runfmt.Run{Status: r.Status, PartialReason: r.PartialReason, Degradations: r.Degradations, Answer: r.Answer,
		Target: r.Target, Quality: r.Quality, Ledger: r.Ledger, Findings: r.Findings, Profiling: r.Profiling}
	if l := r.Load; l != nil {
		out.Load = &runfmt.LoadResult{RPS: l.RPS, Requests: l.Requests, Errors: l.Errors, ErrorKinds: l.ErrorKinds, ErrorSamples: l.ErrorSamples}
	}
	return out
}
