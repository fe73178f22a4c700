package load

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// DefaultExpectStatus is the statuses a load counts as answered when it is
// not told otherwise: 2xx and 3xx. Like k6, anything else (a 404, a 503) is
// a failed request.
const DefaultExpectStatus = "200-399"

// StatusSet is the response statuses a load expects (--expect-status): a
// table of the codes 100–999, so a lookup costs one load per request.
type StatusSet struct{ ok [1000]bool }

// ParseStatusSet reads "200-399", "200,204", "2xx,404" (codes 100–999,
// ranges of them, or a class like 4xx), comma-separated.
func ParseStatusSet(s string) (*StatusSet, error) {
	set := &StatusSet{}
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("expected statuses: empty (want e.g. 200-399, 200,204 or 2xx)")
	}
	for item := range strings.SplitSeq(s, ",") {
		lo, hi, err := statusRange(strings.TrimSpace(item))
		if err != nil {
			return nil, fmt.Errorf("expected statuses %q: %v", s, err)
		}
		for c := lo; c <= hi; c++ {
			set.ok[c] = true
		}
	}
	return set, nil
}

// statusRange reads one item: a code, LO-HI or a class (4xx).
func statusRange(item string) (lo, hi int, err error) {
	if c, ok := strings.CutSuffix(strings.ToLower(item), "xx"); ok && len(c) == 1 && c[0] >= '1' && c[0] <= '9' {
		n := int(c[0]-'0') * 100
		return n, n + 99, nil
	}
	a, b, isRange := strings.Cut(item, "-")
	if lo, err = statusCode(a); err != nil {
		return 0, 0, err
	}
	hi = lo
	if isRange {
		if hi, err = statusCode(b); err != nil {
			return 0, 0, err
		}
		if hi < lo {
			return 0, 0, fmt.Errorf("range %s: %d is below %d", item, hi, lo)
		}
	}
	return lo, hi, nil
}

func statusCode(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 100 || n > 999 {
		return 0, fmt.Errorf("%q: want a status code from 100 to 999, a range of them (200-399) or a class (2xx)", s)
	}
	return n, nil
}

// Has says whether code is expected (nil: DefaultExpectStatus's 200–399).
func (s *StatusSet) Has(code int) bool {
	if s == nil {
		return code >= 200 && code <= 399
	}
	return code >= 0 && code < len(s.ok) && s.ok[code]
}

// statusKinds are the error kinds of unexpected statuses, by class:
// status-4xx, status-5xx... (one string each, made once).
var statusKinds = func() (k [10]string) {
	for i := range k {
		k[i] = "status-" + strconv.Itoa(i) + "xx"
	}
	return k
}()

// statusKind is the error kind of an unexpected status code.
func statusKind(code int) string {
	return statusKinds[min(max(code/100, 0), 9)]
}
