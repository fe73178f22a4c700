package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"time"

	"perflab/internal/runfmt"
)

// JUnitCase is one test case of a JUnit report: an --slo objective or a
// --fail-on rule. At most one of Failure and Skipped is set.
type JUnitCase struct {
	// Class groups the cases: "perflab.slo" or "perflab.fail-on".
	Class, Name string
	// Failure is why the objective or rule failed; Skipped why it could
	// not be checked (not measured, too few runs).
	Failure, Skipped string
	// Detail is the measurement, as the case's system-out.
	Detail string
}

// SLOCases has one case per --slo objective.
func SLOCases(checks []runfmt.SLOCheck) []JUnitCase {
	var out []JUnitCase
	for _, c := range checks {
		jc := JUnitCase{Class: "perflab.slo", Name: c.Objective, Detail: fmt.Sprintf("%s=%s (objective %s)", c.Metric, FormatSLOValue(c), c.Objective)}
		if !c.Pass {
			jc.Failure = fmt.Sprintf("SLO missed: %s=%s, want %s", c.Metric, FormatSLOValue(c), c.Objective)
		}
		out = append(out, jc)
	}
	return out
}

// ThresholdCases has one case per --fail-on rule checked (per step of a
// sweep).
func ThresholdCases(c *runfmt.Comparison) []JUnitCase {
	var out []JUnitCase
	for _, t := range c.Thresholds {
		name := t.Rule
		if t.Step != "" {
			name = t.Step + ": " + t.Rule
		}
		jc := JUnitCase{Class: "perflab.fail-on", Name: name}
		sig := "significant"
		if !t.Significant {
			sig = "not significant"
		}
		jc.Detail = fmt.Sprintf("%s changed %s (%s)%s", t.Metric, FormatChange(t.DeltaPct), sig, medians(c, t.Metric))
		out = append(out, jc.judged(checkOutcome{t.Violated, t.Measured, t.TooFew},
			fmt.Sprintf("regression: %s changed %s (significant)%s, beyond %s%s", t.Metric, FormatChange(t.DeltaPct), medians(c, t.Metric), t.Rule, mostIn(c)),
			fmt.Sprintf("%s was not measured by either side", t.Metric)))
	}
	return out
}

// medians is a metric's ": 0.62 ms → 2.40 ms" from base to new ("" when
// the comparison does not hold it).
func medians(c *runfmt.Comparison, name runfmt.MetricName) string {
	for _, m := range c.Metrics {
		if m.Name == name {
			return ": " + FormatMetric(m.Base.Median, m.Unit) + " → " + FormatMetric(m.New.Median, m.Unit)
		}
	}
	return ""
}

// mostIn is "; most in main.search: +1.79 ms (×5.37) per request": the
// function whose CPU per request grew most, user code first ("" for none).
func mostIn(c *runfmt.Comparison) string {
	f := topLoser(c.Functions, runfmt.ProfileCPU)
	if f == nil || c.Env != "" {
		return ""
	}
	return fmt.Sprintf("; most in %s: %s per %s", f.Function, cmpCostDelta(*f), perUnit(c))
}

// checkOutcome is how a --fail-on rule came out: violated, measured by
// either side, or with too few runs to tell.
type checkOutcome struct{ violated, measured, tooFew bool }

// judged is jc with the outcome o: failed, saying failure, when the rule
// was violated; skipped, saying unmeasured and with no detail, when
// nothing measured what it checks; skipped when too few runs could tell.
func (jc JUnitCase) judged(o checkOutcome, failure, unmeasured string) JUnitCase {
	switch {
	case o.violated:
		jc.Failure = failure
	case !o.measured:
		jc.Skipped, jc.Detail = unmeasured, ""
	case o.tooFew:
		jc.Skipped = "too few runs to tell (4 a side are the least that can be significant)"
	}
	return jc
}

// The JUnit XML elements, as CI systems read them (Ant's and Surefire's
// format; Jenkins, GitLab, GitHub test reporters): testsuites, testsuite
// with name, tests, failures, errors, skipped, time and timestamp, and
// testcase with name, classname and time holding failure or skipped.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name      string      `xml:"name,attr"`
		Tests     int         `xml:"tests,attr"`
		Failures  int         `xml:"failures,attr"`
		Errors    int         `xml:"errors,attr"`
		Skipped   int         `xml:"skipped,attr"`
		Time      string      `xml:"time,attr"`
		Timestamp string      `xml:"timestamp,attr"`
		Cases     []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string    `xml:"name,attr"`
		Classname string    `xml:"classname,attr"`
		Time      string    `xml:"time,attr"`
		Failure   *junitMsg `xml:"failure,omitempty"`
		Skipped   *junitMsg `xml:"skipped,omitempty"`
		SystemOut string    `xml:"system-out,omitempty"`
	}
	junitMsg struct {
		Message string `xml:"message,attr,omitempty"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",chardata"`
	}
)

// WriteJUnit writes cases as one JUnit test suite named suite, run at
// start for elapsed.
func WriteJUnit(w io.Writer, suite string, cases []JUnitCase, start time.Time, elapsed time.Duration) error {
	secs := fmt.Sprintf("%.3f", elapsed.Seconds())
	s := junitSuite{Name: suite, Tests: len(cases), Time: secs, Timestamp: start.UTC().Format("2006-01-02T15:04:05"), Cases: []junitCase{}}
	for _, c := range cases {
		jc := junitCase{Name: c.Name, Classname: c.Class, Time: "0.000", SystemOut: c.Detail}
		switch {
		case c.Failure != "":
			s.Failures++
			jc.Failure = &junitMsg{Message: c.Failure, Type: "regression", Text: c.Failure}
			if c.Class == "perflab.slo" {
				jc.Failure.Type = "slo"
			}
		case c.Skipped != "":
			s.Skipped++
			jc.Skipped = &junitMsg{Message: c.Skipped}
		}
		s.Cases = append(s.Cases, jc)
	}
	doc := junitSuites{Name: "perflab", Tests: s.Tests, Failures: s.Failures, Time: secs, Suites: []junitSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
