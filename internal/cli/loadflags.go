package cli

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

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
	body             string
	bodyFile         string
	timeout          time.Duration
	targetsFile      string
	http2            bool
	disableKeepAlive bool
	insecure         bool
	shard            string
	fs               *pflag.FlagSet
}

// newLoadFlags defines the load flags in a set of their own, which commands
// add to theirs.
func newLoadFlags() *loadFlags {
	f := &loadFlags{fs: pflag.NewFlagSet("load", pflag.ContinueOnError)}
	f.register(f.fs)
	return f
}

func (f *loadFlags) register(fs *pflag.FlagSet) {
	fs.IntVarP(&f.concurrency, "concurrency", "c", 50, "closed model: `workers`, each with its own keep-alive connection (open model: connections opened up front)")
	fs.Int64VarP(&f.requests, "requests", "n", 0, "closed model: stop after `N` requests (default: run for -d)")
	fs.DurationVarP(&f.duration, "duration", "d", 0, "how long to send load (default 10s; with --stages, the stages' total)")
	fs.Float64VarP(&f.qps, "qps", "q", 0, "closed model: cap each worker at `R` requests/s, like hey -q")
	fs.StringVar(&f.rate, "rate", "", "open model: arrivals per second (`R`, or N/duration like 30000/1m); latency is measured from each intended start")
	fs.StringVar(&f.stages, "stages", "", "open model: linear ramps `DUR:RATE,...` like k6's ramping-arrival-rate, e.g. 30s:10,3m:100,30s:0 (starting from --rate, default 0)")
	fs.IntVar(&f.maxInflight, "max-inflight", 1000, "open model: at most `N` requests in flight; arrivals that find no free slot wait and are counted")
	fs.StringVarP(&f.method, "method", "m", "GET", "HTTP `method`")
	fs.StringArrayVarP(&f.headers, "header", "H", nil, "request header `\"Name: value\"` (repeatable)")
	fs.StringVar(&f.body, "body", "", "request `body`")
	fs.StringVar(&f.bodyFile, "body-file", "", "read the request body from `file`")
	fs.DurationVar(&f.timeout, "timeout", 20*time.Second, "bound each request, connection set-up included")
	fs.StringVar(&f.targetsFile, "targets", "", "send the requests of `file` in round robin (see README: METHOD URL, headers, @body or < body, blank line between)")
	fs.BoolVar(&f.http2, "http2", false, "use HTTP/2 (h2 over https, prior-knowledge h2c over http)")
	fs.BoolVar(&f.disableKeepAlive, "disable-keepalive", false, "open a new connection for every request")
	fs.BoolVarP(&f.insecure, "insecure", "k", false, "skip TLS certificate verification")
	fs.StringVar(&f.shard, "shard", "", "take share `i/N` of the rate (or of -c and -n); combine the shards with perflab merge")
}

// config turns the flags and positional URLs into a load config.
func (f *loadFlags) config(urls []string) (load.Config, error) {
	fs := f.fs
	c := load.Config{
		Concurrency: f.concurrency, Requests: f.requests, Duration: f.duration, QPS: f.qps,
		MaxInflight: f.maxInflight, Timeout: f.timeout, HTTP2: f.http2,
		DisableKeepAlive: f.disableKeepAlive, Insecure: f.insecure,
	}
	if c.Concurrency < 1 {
		return c, usageErr("-c %d: must be at least 1", c.Concurrency)
	}
	if c.Timeout <= 0 {
		return c, usageErr("--timeout %s: must be > 0", c.Timeout)
	}
	if fs.Changed("duration") && c.Duration <= 0 {
		return c, usageErr("-d %s: must be > 0", c.Duration)
	}
	if fs.Changed("max-inflight") && c.MaxInflight < 1 {
		return c, usageErr("--max-inflight %d: must be at least 1", c.MaxInflight)
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
	if f.shard != "" {
		i, n, err := load.ParseShard(f.shard)
		if err != nil {
			return c, usageErr("%v", err)
		}
		c.Shard, c.Shards = i, n
	}
	targets, err := f.targets(urls)
	if err != nil {
		return c, err
	}
	c.Targets = targets
	if err := c.Validate(); err != nil {
		return c, usageErr("%v", err)
	}
	return c, nil
}

func (f *loadFlags) targets(urls []string) ([]load.Target, error) {
	if f.targetsFile != "" {
		if len(urls) > 0 {
			return nil, usageErr("give either URLs or --targets, not both")
		}
		fh, err := os.Open(f.targetsFile)
		if err != nil {
			return nil, usageErr("--targets: %v", err)
		}
		defer fh.Close()
		ts, err := load.ParseTargets(fh, filepath.Dir(f.targetsFile))
		if err != nil {
			return nil, usageErr("--targets %s: %v", f.targetsFile, err)
		}
		return ts, nil
	}
	if len(urls) == 0 {
		return nil, usageErr("no URL: give one (e.g. http://127.0.0.1:8080/) or --targets FILE")
	}
	body := []byte(f.body)
	if f.bodyFile != "" {
		if f.body != "" {
			return nil, usageErr("give either --body or --body-file, not both")
		}
		b, err := os.ReadFile(f.bodyFile)
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
		t := load.Target{Method: method, URL: u, Header: map[string][]string{}, Body: body}
		for _, h := range f.headers {
			name, value, err := load.ParseHeader(h)
			if err != nil {
				return nil, usageErr("-H: %v", err)
			}
			t.Header.Add(name, value)
		}
		out = append(out, t)
	}
	if method == "" || strings.ContainsAny(method, " \t\r\n") {
		return nil, usageErr("-m %q: not an HTTP method", f.method)
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
