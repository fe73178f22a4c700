package stats

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"perflab/internal/runfmt"
)

// Threshold is one --fail-on rule: the metric's median changed by more
// than Pct percent in the direction of Op. "p99>+10%" is
// Threshold{Metric: "p99", Op: '>', Pct: 10}.
type Threshold struct {
	Metric runfmt.MetricName
	Op     byte // '>' or '<'
	Pct    float64
}

// String formats t in the syntax ParseFailOn reads, e.g. "rps<-5%".
func (t Threshold) String() string {
	sign := ""
	if !math.Signbit(t.Pct) {
		sign = "+"
	}
	return string(t.Metric) + string(t.Op) + sign + strconv.FormatFloat(t.Pct, 'f', -1, 64) + "%"
}

// Violated reports whether c is a significant change beyond t: DeltaPct
// above Pct for '>' or below Pct for '<' (a change from a median of 0 is
// beyond any). Changes that are not significant, or have too few runs,
// never violate.
func (t Threshold) Violated(c Comparison) bool {
	if !c.Significant || c.TooFew {
		return false
	}
	delta := c.DeltaPct
	if c.Base.Median == 0 && c.New.Median != 0 {
		// From nothing to something: beyond every percentage.
		delta = math.Inf(int(math.Copysign(1, c.New.Median)))
	}
	switch t.Op {
	case '>':
		return delta > t.Pct
	case '<':
		return delta < t.Pct
	}
	return false
}

// ParseFailOn parses a comma-separated list of thresholds such as
// "cpu_per_request>+5%,p99>+10%,rps<-5%". Each item is a metric named in
// runfmt.Metrics, '>' or '<', and a percentage with a '%' suffix
// (its sign is optional). An empty string gives no thresholds.
func ParseFailOn(s string) ([]Threshold, error) {
	return parseRules(s, failOnForm, parseThreshold)
}

const failOnForm = `want METRIC>+PCT% or METRIC<-PCT%, e.g. "p99>+10%"`

func parseThreshold(it ruleItem) (Threshold, error) {
	m, err := runfmt.MetricNames.Parse(it.name)
	if err != nil {
		return Threshold{}, fmt.Errorf("item %q: unknown metric %q (valid: %s)", it.text, it.name, strings.Join(runfmt.MetricNames.Strings(), ", "))
	}
	pct, err := parsePct(it.limit)
	if err != nil {
		return Threshold{}, fmt.Errorf("item %q: %w", it.text, err)
	}
	if err := checkWorse(m, it.op, pct); err != nil {
		return Threshold{}, fmt.Errorf("item %q: %w", it.text, err)
	}
	return Threshold{Metric: m, Op: it.op, Pct: pct}, nil
}

// checkWorse refuses a rule whose change has the other sign than its
// comparison: "p99>-10%" fires on any change above -10%, an improvement of
// 5% included, and "p99<+10%" on any below +10%. It says the rule that
// fires when the metric gets worse: METRIC>+PCT% for a metric better
// lower, METRIC<-PCT% for one better higher.
func checkWorse(m runfmt.MetricName, op byte, pct float64) error {
	if !(op == '>' && pct < 0 || op == '<' && pct > 0) {
		return nil
	}
	def, _ := runfmt.Metric(m)
	worse, dir, side := byte('>'), "rises", "above"
	if def.Better == runfmt.BetterHigher {
		worse, dir = '<', "falls"
	}
	if op == '<' {
		side = "below"
	}
	regression := Threshold{Metric: m, Op: worse, Pct: math.Abs(pct)}
	if worse == '<' {
		regression.Pct = -regression.Pct
	}
	given := Threshold{Metric: m, Op: op, Pct: pct}
	return fmt.Errorf("%s gets worse as it %s, so the rule that fires on a regression is %s: %s fires on any change %s %s, improvements included",
		m, dir, regression, given, side, given.String()[len(m)+1:])
}

// ruleItem is one item of a --fail-on list, NAME OP LIMIT: "p99>+10%" has
// the name "p99", the op '>' and the limit "+10%".
type ruleItem struct {
	text, name, limit string
	op                byte
}

// parseRules reads a comma-separated --fail-on list of NAME>LIMIT and
// NAME<LIMIT items, each made a rule by parse; form says what an item
// looks like, for the errors. An empty string gives no rules.
func parseRules[R any](s, form string, parse func(ruleItem) (R, error)) ([]R, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []R
	for text := range strings.SplitSeq(s, ",") {
		it, err := splitRule(strings.TrimSpace(text), form)
		var r R
		if err == nil {
			r, err = parse(it)
		}
		if err != nil {
			return nil, fmt.Errorf("parsing --fail-on %q: %w", s, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// splitRule splits an item at its '>' or '<'.
func splitRule(text, form string) (ruleItem, error) {
	if text == "" {
		return ruleItem{}, errors.New("empty item (stray comma?): " + form)
	}
	i := strings.IndexAny(text, "<>")
	if i < 0 {
		return ruleItem{}, fmt.Errorf("item %q has no '>' or '<': %s", text, form)
	}
	return ruleItem{text: text, name: strings.TrimSpace(text[:i]), op: text[i], limit: strings.TrimSpace(text[i+1:])}, nil
}

func parsePct(s string) (float64, error) {
	num, ok := strings.CutSuffix(s, "%")
	if !ok {
		return 0, fmt.Errorf("percentage %q must end in '%%': %s", s, failOnForm)
	}
	// Only plain decimals: ParseFloat alone would also take "inf", "0x1p3"
	// and "1_0".
	if num == "" || strings.Trim(num, "+-.0123456789") != "" {
		return 0, fmt.Errorf("percentage %q is not a number: %s", s, failOnForm)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, fmt.Errorf("percentage %q is not a number: %s", s, failOnForm)
	}
	return v, nil
}
