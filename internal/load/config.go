package load

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Config describes one load. The zero values of optional fields mean the
// defaults documented on each field.
type Config struct {
	Targets []Target
	// Concurrency is the number of workers (closed model), each with its own
	// connection, or the connections opened up front (open model). Default 50.
	Concurrency int
	// Requests stops the closed model after this many requests (0: no count).
	Requests int64
	// Duration bounds the load. Default 10s unless Requests is set.
	Duration time.Duration
	// QPS caps each closed-model worker at this many requests/s (0: no cap).
	QPS float64
	// Rate selects the open model: arrivals per second (the start rate when
	// Stages are given).
	Rate float64
	// Stages ramp the open model's rate linearly (k6's ramping-arrival-rate).
	Stages []Stage
	// MaxInflight bounds the open model's concurrent requests. Default 1000.
	MaxInflight int
	// Timeout bounds each request, connection set-up included. Default 20s.
	Timeout time.Duration
	// HTTP2 sends requests over HTTP/2 (h2 over TLS, h2c over plain http).
	HTTP2 bool
	// DisableKeepAlive opens a new connection for every request.
	DisableKeepAlive bool
	// Insecure skips TLS certificate verification.
	Insecure bool
	// Shard and Shards take the Shard-th (0-based) of Shards equal shares.
	Shard, Shards int
	// StartAt, when set, is when the load begins: Run waits until then,
	// and the schedule and the per-second series count from it, so shards
	// given one StartAt line up (see waitStart).
	StartAt time.Time
	// Drain, in the closed model, lets the requests in flight when Duration
	// ends complete for up to Drain (counted as any other) instead of
	// cutting them off at once; no request starts meanwhile. What is still
	// in flight then is unfinished. perflab run drains, so the service's
	// CPU in the window is that of requests the window counts.
	Drain time.Duration
	// LocalPorts, if set, records the local port of every connection the
	// load opens (perflab run tells its own connections to the service
	// from other clients' by them).
	LocalPorts *PortSet
	// ExpectStatus is the statuses counted as answered; any other is an
	// error of kind status-Nxx. nil: DefaultExpectStatus (2xx and 3xx).
	ExpectStatus *StatusSet

	// engine forces an engine (tests compare both).
	engine string
}

// engineGoroutines forces the goroutine engine.
const engineGoroutines = "goroutines"

// Open reports whether the config is an open-model load.
func (c *Config) Open() bool { return c.Rate > 0 || len(c.Stages) > 0 }

// withDefaults fills the defaults and applies the shard's share.
func (c Config) withDefaults() Config {
	if c.Concurrency == 0 {
		c.Concurrency = 50
	}
	if c.Duration == 0 && c.Requests == 0 && len(c.Stages) == 0 {
		c.Duration = 10 * time.Second
	}
	if c.MaxInflight == 0 {
		c.MaxInflight = 1000
	}
	if c.Timeout == 0 {
		c.Timeout = 20 * time.Second
	}
	if c.Shards > 1 {
		c.Concurrency = shareInt(c.Concurrency, c.Shard, c.Shards)
		c.Requests = int64(shareInt(int(c.Requests), c.Shard, c.Shards))
		c.MaxInflight = max(1, shareInt(c.MaxInflight, c.Shard, c.Shards))
		c.Rate /= float64(c.Shards)
		st := make([]Stage, len(c.Stages))
		for i, s := range c.Stages {
			st[i] = Stage{Duration: s.Duration, Target: s.Target / float64(c.Shards)}
		}
		c.Stages = st
	}
	return c
}

// shareInt splits n into parts as evenly as possible; part i gets its share.
func shareInt(n, i, parts int) int {
	s := n / parts
	if i < n%parts {
		s++
	}
	return s
}

// Validate checks the config and names the offending setting.
func (c *Config) Validate() error {
	switch {
	case len(c.Targets) == 0:
		return fmt.Errorf("no target: give a URL or --targets FILE")
	case c.Concurrency < 0 || c.Concurrency > 100_000:
		return fmt.Errorf("-c %d: must be from 1 to 100000", c.Concurrency)
	case c.Requests < 0:
		return fmt.Errorf("-n %d: must be >= 0", c.Requests)
	case c.Duration < 0:
		return fmt.Errorf("-d %s: must be > 0", c.Duration)
	case c.QPS < 0:
		return fmt.Errorf("-q %g: must be >= 0", c.QPS)
	case c.Rate < 0:
		return fmt.Errorf("--rate %g: must be > 0", c.Rate)
	case c.MaxInflight < 0:
		return fmt.Errorf("--max-inflight %d: must be >= 1", c.MaxInflight)
	case c.Timeout < 0:
		return fmt.Errorf("--timeout %s: must be > 0", c.Timeout)
	case c.Shards < 0 || (c.Shards > 0 && (c.Shard < 0 || c.Shard >= c.Shards)):
		return fmt.Errorf("--shard %d/%d: want i/N with 1 <= i <= N", c.Shard+1, c.Shards)
	case c.Open() && c.QPS > 0:
		return fmt.Errorf("-q caps closed-model workers; with --rate or --stages the rate is already fixed")
	case c.Open() && c.Requests > 0:
		return fmt.Errorf("-n counts closed-model requests; with --rate give -d (the rate times -d is the count)")
	case c.Open() && len(c.Stages) == 0 && c.Duration == 0:
		return nil // the 10s default applies
	}
	if c.Shards > 1 && !c.Open() {
		if c.Concurrency > 0 && c.Concurrency < c.Shards {
			return fmt.Errorf("--shard %d/%d: -c %d is smaller than the number of shards", c.Shard+1, c.Shards, c.Concurrency)
		}
	}
	return nil
}

// CheckSchedule refuses an open-model load whose schedule holds less than
// one request: a rate so low, or stages so near 0, that nothing would be
// sent. It judges the whole schedule, before --shard takes its share.
func (c *Config) CheckSchedule() error {
	if !c.Open() {
		return nil
	}
	d := c.Duration
	if d == 0 {
		d = c.withDefaults().Duration
	}
	s := NewSchedule(c.Rate, c.Stages, d)
	if s.total >= 1 {
		return nil
	}
	if len(c.Stages) > 0 {
		return fmt.Errorf("--stages: the schedule sends %s requests in its %s (its rates are too low): give rates whose ramps send at least one", sig3(s.total), s.Duration())
	}
	return fmt.Errorf("--rate %s sends %s requests in %s: give at least %s per second, or a longer -d", sig3(c.Rate), sig3(s.total), d, sig3(1/d.Seconds()))
}

// sig3 formats x to 3 significant digits, without an exponent from 1 up.
func sig3(x float64) string {
	if x >= 1 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// ParseShard parses --shard "i/N" (1-based i) into a 0-based index and N.
func ParseShard(s string) (int, int, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n || n > 10_000 {
		return 0, 0, fmt.Errorf("--shard %q: want i/N with 1 <= i <= N (e.g. 2/4)", s)
	}
	return i - 1, n, nil
}
