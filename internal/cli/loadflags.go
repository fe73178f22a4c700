package cli

import (
	"errors"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"perflab/internal/files"
	"perflab/internal/load"
)

// loadFlags are the flags that describe a load; `load`, `run`, `ab` and
// `sweep` share them.
type loadFlags struct {
	concurrency      int
	requests         int64
	duration         time.Duration
	qps              float64
	rate             string
	stages           string
	maxInflight      int
	method           string
	headers          []string
	headerFiles      []string
	body             string
	bodyFile         string
	timeout          time.Duration
	targetsFile      string
	http2            bool
	disableKeepAlive bool
	insecure         bool
	shard            string
	startAt          string
	expectStatus     string
	fs               *pflag.FlagSet
}

// newLoadFlags defines the load flags in a set of their own, which commands
// add to theirs.
func newLoadFlags() *loadFlags {
	f := &loadFlags{fs: pflag.NewFlagSet("load", pflag.ContinueOnError)}
	f.register(f.fs)
	return f
}

// Bounds of the load flags.
const (
	maxConcurrency = 100_000
	maxInflight    = 1_000_000
	maxDuration    = 7 * 24 * time.Hour
	maxRateFlag    = 10_000_000
	// minQPS is the lowest -q cap: a request per worker every 1000 s.
	minQPS = 0.001
)

func (f *loadFlags) register(fs *pflag.FlagSet) {
	v := flagSet{fs}
	v.int(&f.concurrency, "concurrency", "c", 50, 1, maxConcurrency, "closed model: `workers`, each with its own keep-alive connection (open model: connections opened up front)")
	v.int64(&f.requests, "requests", "n", 0, 0, maxCount, "closed model: stop after `N` requests (default: run for -d)")
	v.duration(&f.duration, "duration", "d", 0, time.Millisecond, maxDuration, "how long to send load (default 10s; with --stages, the stages' total)")
	v.floor(&f.qps, "qps", "q", minQPS, maxRateFlag, "no cap", "closed model: cap each worker at `R` requests/s, like hey -q")
	v.checked(&f.rate, "rate", "", "", "rate", checkRate, "open model: arrivals per second (`R`, or N/duration like 30000/1m); latency is measured from each intended start")
	v.checked(&f.stages, "stages", "", "", "stages", checkStages, "open model: linear ramps `DUR:RATE,...` like k6's ramping-arrival-rate, e.g. 30s:10,3m:100,30s:0 (starting from --rate, default 0; at most 24h in all)")
	v.int(&f.maxInflight, "max-inflight", "", 1000, 1, maxInflight, "open model: at most `N` requests in flight; arrivals that find no free slot wait and are counted")
	v.checked(&f.method, "method", "m", "GET", "string", checkMethod, "HTTP `method`")
	v.list(&f.headers, "header", "H", "stringArray", checkHeader, "request header `\"Name: value\"` (repeatable); \"Name: @file\" sends the file as the value (at most 4 MiB, one trailing newline dropped)")
	v.list(&f.headerFiles, "header-file", "", "stringArray", inputFile(load.MaxHeaderFileBytes), "request headers from `file`, one \"Name: value\" a line, # for comments (at most 4 MiB; repeatable)")
	fs.StringVar(&f.body, "body", "", "request `body`")
	v.checked(&f.bodyFile, "body-file", "", "", "file", inputFile(maxBodyFile), "read the request body from `file` (at most 64 MiB)")
	v.duration(&f.timeout, "timeout", "", 20*time.Second, time.Millisecond, 24*time.Hour, "bound each request, connection set-up included")
	v.checked(&f.targetsFile, "targets", "", "", "file", inputFile(maxTargetsFile), "send the requests of `file` in round robin (see README: METHOD URL, headers, @body or < body, blank line between), after those of the URLs given; -H applies to them too")
	fs.BoolVar(&f.http2, "http2", false, "use HTTP/2 (h2 over https, prior-knowledge h2c over http)")
	fs.BoolVar(&f.disableKeepAlive, "disable-keepalive", false, "open a new connection for every request")
	fs.BoolVarP(&f.insecure, "insecure", "k", false, "skip TLS certificate verification")
	v.checked(&f.shard, "shard", "", "", "i/N", checkShard, "take share `i/N` of the rate (or of -c and -n); combine the shards with perflab merge")
	v.checked(&f.startAt, "start-at", "", "", "time", checkStartAt, "wait until `time` (RFC 3339, e.g. 2026-05-04T10:00:00Z, or Unix seconds; ahead, within a day) and start then: give every shard the same one, and their schedules and per-second series line up (run: the warm-up starts then)")
	v.checked(&f.expectStatus, "expect-status", "", load.DefaultExpectStatus, "statuses", checkExpectStatus, "response `statuses` that count as answered, like k6's expectedStatuses (e.g. 200-399, 200,204, 2xx,404); any other is an error of kind status-Nxx, and readiness waits for one of them")
}

// checkStartAt accepts a --start-at ahead of now, within a day.
func checkStartAt(s string) error {
	t, err := load.ParseStartAt(s)
	if err != nil {
		return err
	}
	return load.CheckStartAt(t, time.Now())
}

// checkExpectStatus accepts --expect-status: codes, ranges and classes.
func checkExpectStatus(s string) error {
	_, err := load.ParseStatusSet(s)
	return err
}

// checkMethod accepts an HTTP method: a token (RFC 9110: letters, digits
// and !#$%&'*+-.^_`|~).
func checkMethod(s string) error {
	if s == "" || strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r))
	}) >= 0 {
		return errors.New("not an HTTP method (GET, POST, ...)")
	}
	return nil
}

// given says whether the command line gives a load (URLs or --targets):
// a command with one is a service, a command without one a batch program.
func (f *loadFlags) given(urls []string) bool { return len(urls) > 0 || f.targetsFile != "" }

// config turns the flags and positional URLs into a load config.
func (f *loadFlags) config(urls []string) (load.Config, error) {
	fs := f.fs
	c := load.Config{
		Concurrency: f.concurrency, Requests: f.requests, Duration: f.duration, QPS: f.qps,
		MaxInflight: f.maxInflight, Timeout: f.timeout, HTTP2: f.http2,
		DisableKeepAlive: f.disableKeepAlive, Insecure: f.insecure,
	}
	if f.rate != "" {
		r, err := load.ParseRate(f.rate)
		if err != nil {
			return c, usageErr("--%v", err)
		}
		c.Rate = r
	}
	if f.stages != "" {
		st, err := load.ParseStages(f.stages)
		if err != nil {
			return c, usageErr("--%v", err)
		}
		if fs.Changed("duration") {
			return c, usageErr("--stages sets the duration itself: drop -d")
		}
		c.Stages = st
	}
	if f.expectStatus != load.DefaultExpectStatus {
		set, err := load.ParseStatusSet(f.expectStatus)
		if err != nil {
			return c, usageErr("--expect-status: %v", err)
		}
		c.ExpectStatus = set
	}
	if f.shard != "" {
		i, n, err := load.ParseShard(f.shard)
		if err != nil {
			return c, usageErr("%v", err)
		}
		c.Shard, c.Shards = i, n
	}
	if f.startAt != "" {
		t, err := load.ParseStartAt(f.startAt) // checked ahead when parsed
		if err != nil {
			return c, usageErr("--start-at %s: %v", quoteArg(f.startAt), err)
		}
		c.StartAt = t
	}
	targets, err := f.targets(urls)
	if err != nil {
		return c, err
	}
	c.Targets = targets
	if err := c.Validate(); err != nil {
		return c, usageErr("%v", err)
	}
	if err := c.CheckSchedule(); err != nil {
		return c, usageErr("%v", err)
	}
	return c, nil
}

// targets are the requests of the load: one per URL (with -m, -H and the
// body), then those of --targets, in round robin. -H and --header-file
// apply to every request; a targets file's request that sets a header of
// its own sends that one instead.
func (f *loadFlags) targets(urls []string) ([]load.Target, error) {
	if len(urls) == 0 && f.targetsFile == "" {
		return nil, usageErr("no URL: give one (e.g. http://127.0.0.1:8080/) or --targets FILE")
	}
	header, err := f.header()
	if err != nil {
		return nil, err
	}
	out, err := f.urlTargets(urls, header)
	if err != nil {
		return nil, err
	}
	if f.targetsFile == "" {
		return out, nil
	}
	ts, err := f.fileTargets(len(urls) > 0)
	if err != nil {
		return nil, err
	}
	for i := range ts {
		for name, vals := range header {
			if _, own := ts[i].Header[name]; !own {
				ts[i].Header[name] = slices.Clone(vals)
			}
		}
	}
	return append(out, ts...), nil
}

// header is the headers of --header-file, then of -H (a "Name: @file"
// read from its file).
func (f *loadFlags) header() (http.Header, error) {
	h := http.Header{}
	for _, path := range f.headerFiles {
		b, err := files.ReadFile(path, load.MaxHeaderFileBytes)
		if err != nil {
			return nil, usageErr("--header-file: %v", err)
		}
		fh, err := load.ParseHeaderLines(b)
		if err != nil {
			return nil, usageErr("--header-file %s: %v", path, err)
		}
		for name, vals := range fh {
			h[name] = append(h[name], vals...)
		}
	}
	for _, s := range f.headers {
		name, value, err := headerFlag(s)
		if err != nil {
			return nil, usageErr("-H: %v", err)
		}
		h.Add(name, value)
	}
	return h, nil
}

// fileTargets reads --targets. Without a URL, -m and the body flags would
// set nothing (the file gives each request's method and body): refused.
func (f *loadFlags) fileTargets(withURL bool) ([]load.Target, error) {
	if !withURL {
		for _, name := range []string{"method", "body", "body-file"} {
			if f.fs.Changed(name) {
				return nil, usageErr("--%s sets the request of a URL, and --targets %s names each request's own: give the URL too, or drop --%s", name, f.targetsFile, name)
			}
		}
	}
	fh, err := files.Open(f.targetsFile, maxTargetsFile)
	if err != nil {
		return nil, usageErr("--targets: %v", err)
	}
	defer fh.Close()
	ts, err := load.ParseTargets(files.LimitReader(fh, maxTargetsFile, f.targetsFile), filepath.Dir(f.targetsFile))
	if err != nil {
		return nil, usageErr("--targets %s: %v", f.targetsFile, err)
	}
	return ts, nil
}

// urlTargets are the requests of the URLs given: -m, the body, header.
func (f *loadFlags) urlTargets(urls []string, header http.Header) ([]load.Target, error) {
	if len(urls) == 0 {
		return nil, nil
	}
	body := []byte(f.body)
	if f.bodyFile != "" {
		if f.body != "" {
			return nil, usageErr("give either --body or --body-file, not both")
		}
		b, err := files.ReadFile(f.bodyFile, maxBodyFile)
		if err != nil {
			return nil, usageErr("--body-file: %v", err)
		}
		body = b
	}
	method := strings.ToUpper(f.method)
	var out []load.Target
	for _, raw := range urls {
		u, err := load.ParseURL(raw)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		out = append(out, load.Target{Method: method, URL: u, Header: header.Clone(), Body: body})
	}
	return out, nil
}

// describe records the load's settings in flag form for run.json.
func (f *loadFlags) describe() map[string]string {
	m := map[string]string{}
	f.fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Changed || fl.Name == "concurrency" || fl.Name == "timeout" {
			m[fl.Name] = fl.Value.String()
		}
	})
	return m
}
