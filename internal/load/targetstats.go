package load

import (
	"fmt"
	"strconv"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"perflab/internal/runfmt"
)

// Per-target breakdown of a load with several targets (k6 does this with
// tags): each shard keeps, per target, a latency histogram, status codes
// and errors, recorded with the rest of the outcome under the shard's lock.
// A single-target load keeps none (its totals are the target's).

// maxTargetBreakdown bounds the targets broken down: a targets file of
// thousands of URLs would cost a histogram per URL and shard.
const maxTargetBreakdown = 64

// targetAcc is one target's share of a shard. Its histogram has 2
// significant digits (1% resolution), a fifth of the memory of the load's
// main histogram.
type targetAcc struct {
	hist     *hdr.Histogram
	status   map[int]int64
	requests int64
	errors   int64
	errKinds map[string]int64
}

func newTargetAccs(n int) []targetAcc {
	if n < 2 || n > maxTargetBreakdown {
		return nil
	}
	accs := make([]targetAcc, n)
	for i := range accs {
		accs[i] = targetAcc{hist: newSecHist(), status: map[int]int64{}, errKinds: map[string]int64{}}
	}
	return accs
}

// recordTarget adds an outcome to its target's accumulator; s.mu is held.
func (s *shard) recordTarget(o *outcome, lat int64, kind string) {
	if o.target < 0 || o.target >= len(s.targets) {
		return
	}
	t := &s.targets[o.target]
	t.requests++
	if o.err == nil {
		t.hist.RecordValue(lat)
		t.status[o.status]++
	}
	if kind != "" {
		t.errors++
		t.errKinds[kind]++
	}
}

// targetStats merges the shards' per-target accumulators, one entry per
// distinct "METHOD URL"; nil without a breakdown.
func (a *Attacker) targetStats() ([]runfmt.TargetStats, error) {
	if len(a.shards) == 0 || a.shards[0].targets == nil {
		return nil, nil
	}
	type merged struct {
		st   runfmt.TargetStats
		hist *hdr.Histogram
	}
	var order []string
	byName := map[string]*merged{}
	for i, p := range a.targets {
		name := p.target.Method + " " + p.target.URL.String()
		m := byName[name]
		if m == nil {
			m = &merged{st: runfmt.TargetStats{Target: name, Status: map[string]int64{}, ErrorKinds: map[string]int64{}}, hist: newSecHist()}
			byName[name] = m
			order = append(order, name)
		}
		for _, s := range a.shards {
			s.mu.Lock()
			t := &s.targets[i]
			m.hist.Merge(t.hist)
			m.st.Requests += t.requests
			m.st.Errors += t.errors
			for code, n := range t.status {
				m.st.Status[strconv.Itoa(code)] += n
			}
			for k, n := range t.errKinds {
				m.st.ErrorKinds[k] += n
			}
			s.mu.Unlock()
		}
	}
	out := make([]runfmt.TargetStats, 0, len(order))
	for _, name := range order {
		m := byName[name]
		m.st.Latency = Summarize(m.hist)
		var err error
		if m.st.Histogram, err = encode(m.hist); err != nil {
			return out, fmt.Errorf("target %s: %w", name, err)
		}
		out = append(out, m.st)
	}
	return out, nil
}

// mergeTargets adds p's per-target results into out's, by target.
func mergeTargets(out, p *runfmt.LoadResult) error {
	for _, t := range p.Targets {
		i := 0
		for i < len(out.Targets) && out.Targets[i].Target != t.Target {
			i++
		}
		if i == len(out.Targets) {
			out.Targets = append(out.Targets, runfmt.TargetStats{Target: t.Target, Status: map[string]int64{}, ErrorKinds: map[string]int64{}})
		}
		o := &out.Targets[i]
		o.Requests += t.Requests
		o.Errors += t.Errors
		for k, v := range t.Status {
			o.Status[k] += v
		}
		for k, v := range t.ErrorKinds {
			o.ErrorKinds[k] += v
		}
		h, err := decodeOrNew(t.Histogram)
		if err != nil {
			return err
		}
		if o.Histogram != "" {
			oh, err := decodeOrNew(o.Histogram)
			if err != nil {
				return err
			}
			oh.Merge(h)
			h = oh
		}
		if o.Histogram, err = encode(h); err != nil {
			return err
		}
		o.Latency = Summarize(h)
	}
	return nil
}

func decodeOrNew(s string) (*hdr.Histogram, error) {
	if s == "" {
		return newSecHist(), nil
	}
	return hdr.Decode([]byte(s))
}
