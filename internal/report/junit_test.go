package report

import (
	"bytes"
	"encoding/xml"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"perflab/internal/runfmt"
)

// The JUnit schema CI systems read (Ant's format as Jenkins' xunit
// junit-10.xsd and Surefire define it): testsuites holds testsuite
// elements; a testsuite must have name, tests, failures and errors, may
// have skipped, time (digits with an optional fraction), timestamp; a
// testcase must have a name and holds at most failure, error, skipped,
// system-out, system-err. These types read a report back with nothing
// left over: unknown elements or attributes are collected and refused.
type (
	xSuites struct {
		XMLName  xml.Name   `xml:"testsuites"`
		Name     string     `xml:"name,attr"`
		Tests    string     `xml:"tests,attr"`
		Failures string     `xml:"failures,attr"`
		Errors   string     `xml:"errors,attr"`
		Time     string     `xml:"time,attr"`
		Suites   []xSuite   `xml:"testsuite"`
		Other    []xml.Attr `xml:",any,attr"`
		Unknown  []xAny     `xml:",any"`
	}
	xSuite struct {
		Name      *string    `xml:"name,attr"`
		Tests     *string    `xml:"tests,attr"`
		Failures  *string    `xml:"failures,attr"`
		Errors    *string    `xml:"errors,attr"`
		Skipped   string     `xml:"skipped,attr"`
		Time      string     `xml:"time,attr"`
		Timestamp string     `xml:"timestamp,attr"`
		Cases     []xCase    `xml:"testcase"`
		Other     []xml.Attr `xml:",any,attr"`
		Unknown   []xAny     `xml:",any"`
	}
	xCase struct {
		Name      *string    `xml:"name,attr"`
		Classname string     `xml:"classname,attr"`
		Time      string     `xml:"time,attr"`
		Failure   []xMsg     `xml:"failure"`
		Error     []xMsg     `xml:"error"`
		Skipped   []xMsg     `xml:"skipped"`
		SystemOut []string   `xml:"system-out"`
		Other     []xml.Attr `xml:",any,attr"`
		Unknown   []xAny     `xml:",any"`
	}
	xMsg struct {
		Message string     `xml:"message,attr"`
		Type    string     `xml:"type,attr"`
		Text    string     `xml:",chardata"`
		Other   []xml.Attr `xml:",any,attr"`
	}
	xAny struct {
		XMLName xml.Name
	}
)

// surefireTime is the junit-10.xsd pattern of a time attribute.
var surefireTime = regexp.MustCompile(`^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?$`)

// checkJUnit parses a report back and checks it against the schema: the
// required attributes, the allowed elements, the time format, and counts
// that match the cases.
func checkJUnit(t *testing.T, data []byte) xSuites {
	t.Helper()
	var doc xSuites
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("JUnit report does not parse: %v\n%s", err, data)
	}
	if len(doc.Other)+len(doc.Unknown) > 0 {
		t.Errorf("testsuites has attributes or elements outside the schema: %v %v", doc.Other, doc.Unknown)
	}
	for _, s := range doc.Suites {
		if s.Name == nil || s.Tests == nil || s.Failures == nil || s.Errors == nil {
			t.Fatalf("testsuite lacks a required attribute (name, tests, failures, errors): %s", data)
		}
		if len(s.Other)+len(s.Unknown) > 0 {
			t.Errorf("testsuite %q has attributes or elements outside the schema: %v %v", *s.Name, s.Other, s.Unknown)
		}
		if !surefireTime.MatchString(s.Time) {
			t.Errorf("testsuite time %q does not match the schema's pattern", s.Time)
		}
		if _, err := time.Parse("2006-01-02T15:04:05", s.Timestamp); err != nil {
			t.Errorf("testsuite timestamp %q: %v", s.Timestamp, err)
		}
		failures, skipped := 0, 0
		for _, c := range s.Cases {
			if c.Name == nil || *c.Name == "" {
				t.Errorf("testcase without a name in %s", data)
				continue
			}
			if len(c.Other)+len(c.Unknown) > 0 || len(c.Failure)+len(c.Error)+len(c.Skipped) > 1 {
				t.Errorf("testcase %q: outside the schema, or more than one result: %+v", *c.Name, c)
			}
			if !surefireTime.MatchString(c.Time) {
				t.Errorf("testcase %q time %q does not match the schema's pattern", *c.Name, c.Time)
			}
			failures += len(c.Failure)
			skipped += len(c.Skipped)
		}
		for _, chk := range []struct {
			attr string
			want int
		}{{*s.Tests, len(s.Cases)}, {*s.Failures, failures}, {*s.Errors, 0}, {s.Skipped, skipped}} {
			if n, err := strconv.Atoi(chk.attr); err != nil || n != chk.want {
				t.Errorf("testsuite %q counts %q; want %d", *s.Name, chk.attr, chk.want)
			}
		}
	}
	return doc
}

func TestJUnitThresholds(t *testing.T) {
	c := failedComparison()
	c.Thresholds = append(c.Thresholds,
		runfmt.ThresholdCheck{Rule: "p90>+10%", Metric: "p90"},
		runfmt.ThresholdCheck{Rule: "rss_max>+5%", Metric: "rss_max", Measured: true, TooFew: true, DeltaPct: 3.3})
	var b bytes.Buffer
	if err := WriteJUnit(&b, "perflab compare", ThresholdCases(c), time.Now(), 1234567*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	doc := checkJUnit(t, b.Bytes())
	if len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 5 {
		t.Fatalf("want 1 suite of 5 cases (one per rule):\n%s", b.String())
	}
	cases := doc.Suites[0].Cases
	if *cases[0].Name != "cpu_per_request>+5%" || len(cases[0].Failure) != 1 || !strings.Contains(cases[0].Failure[0].Message, "×3.87") ||
		!strings.Contains(cases[0].Failure[0].Message, "0.62 ms → 2.40 ms") || !strings.Contains(cases[0].Failure[0].Message, "most in main.(*server).search|lower") {
		t.Errorf("first case %+v; want the failed rule with its change, its medians and the function that grew most", cases[0])
	}
	if len(cases[1].Failure)+len(cases[2].Failure) != 0 || len(cases[3].Skipped) != 1 || len(cases[4].Skipped) != 1 {
		t.Errorf("cases %+v; want two passes and two skipped (not measured, too few runs)", cases)
	}
}

func TestJUnitSLO(t *testing.T) {
	checks := []runfmt.SLOCheck{{Objective: "p99<100ms", Metric: "p99", Limit: 100, Measured: 127.3, Unit: "ms"}, {Objective: "errors<1%", Metric: "errors", Limit: 1, Unit: "%", Pass: true}}
	var b bytes.Buffer
	if err := WriteJUnit(&b, "perflab run svc <&>", SLOCases(checks), time.Now(), time.Second); err != nil {
		t.Fatal(err)
	}
	doc := checkJUnit(t, b.Bytes())
	cs := doc.Suites[0].Cases
	if *doc.Suites[0].Name != "perflab run svc <&>" || len(cs) != 2 || len(cs[0].Failure) != 1 || cs[0].Failure[0].Type != "slo" || len(cs[1].Failure) != 0 {
		t.Errorf("SLO report %s; want the missed p99 failed and errors passed", b.String())
	}
	b.Reset()
	if err := WriteJUnit(&b, "perflab run", nil, time.Now(), 0); err != nil {
		t.Fatal(err)
	}
	if doc := checkJUnit(t, b.Bytes()); *doc.Suites[0].Tests != "0" {
		t.Errorf("no objectives: %s", b.String())
	}
}
