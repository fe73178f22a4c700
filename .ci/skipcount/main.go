// Command skipcount reads `go test -json` for .ci/test. Three modes:
//
//	go test -json ./... | skipcount render
//	skipcount report [-ci] [-require-host NEED] [-short LABEL] LABEL=FILE...
//	skipcount skipped FILE
//
// render prints what a plain go test prints (each package's result line,
// build errors) and the whole output of every test that failed, as the
// events arrive. report reads the saved events of one or more runs and
// prints their skipped tests by reason, a table with a column per run,
// and a closing line per run ("full: 812 passed, 0 failed, 20 skipped").
// A skip for a missing part of the machine says so in a machine-readable
// word (internal/labtest: "perflab-skip: tool=py-spy: ...", or host=
// for what the machine is, such as root); report prints a line for each
// ("py-spy missing: 23 tests would skip") and, with -ci, exits 1 when a
// test skipped for a missing tool or a host need named by -require-host. The untagged skips of a run
// named by -short (the -short run, whose slow tests skip by design) are
// one row; the others' are listed by their message. skipped prints a
// go test -run pattern of the tests a saved run skipped: the top-level
// tests that skipped or have a subtest that did, so that a second run of
// only those covers what the first (the -short run) left out.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
)

func main() {
	err := run(os.Args[1:], os.Stdin, os.Stdout)
	switch {
	case err == errMissing:
		os.Exit(1) // the report's lines said which
	case err != nil:
		fmt.Fprintln(os.Stderr, "skipcount:", err)
		os.Exit(2)
	}
}

// errMissing is report's error when tests skipped for a missing part on
// CI; the lines saying which are printed already.
var errMissing = fmt.Errorf("tests skipped for a missing tool (-ci)")

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: skipcount render < EVENTS, skipcount report [-ci] [-require-host NEED] [-short LABEL] LABEL=FILE (one or more), or skipcount skipped FILE")
	}
	switch args[0] {
	case "render":
		return render(stdin, stdout)
	case "skipped":
		if len(args) != 2 {
			return fmt.Errorf("skipped: want one FILE of go test -json events")
		}
		f, err := os.Open(args[1])
		if err != nil {
			return err
		}
		defer f.Close()
		pattern, err := skippedPattern(f)
		if err != nil {
			return fmt.Errorf("%s: %w", args[1], err)
		}
		_, err = fmt.Fprintln(stdout, pattern)
		return err
	case "report":
		fs := flag.NewFlagSet("report", flag.ContinueOnError)
		ci := fs.Bool("ci", false, "exit 1 when a test skipped for a missing tool")
		short := fs.String("short", "", "the `LABEL` of the -short run: its untagged skips are one row")
		var hosts []string
		fs.Func("require-host", "with -ci, exit 1 too when a test skipped for want of the host `NEED` (root)", func(s string) error {
			hosts = append(hosts, s)
			return nil
		})
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		var runs []*runTally
		for _, a := range fs.Args() {
			label, file, ok := strings.Cut(a, "=")
			if !ok || label == "" || file == "" {
				return fmt.Errorf("%q: want LABEL=FILE", a)
			}
			f, err := os.Open(file)
			if err != nil {
				return err
			}
			rt, err := tally(label, f)
			f.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			runs = append(runs, rt)
		}
		if len(runs) == 0 {
			return fmt.Errorf("report: no LABEL=FILE given")
		}
		return report(stdout, runs, reportOptions{short: *short, ci: *ci, hosts: hosts})
	}
	return fmt.Errorf("%q: want render, report or skipped", args[0])
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// testKey names a test across packages.
type testKey struct{ pkg, test string }

// render copies the events' text as a plain go test would print it: the
// output that belongs to no test (package results, panics outside a
// test), build errors, and every failed test's output, kept until the
// test ends. A line that is not an event (go's own errors) is copied.
func render(in io.Reader, out io.Writer) error {
	w := bufio.NewWriter(out)
	pending := map[testKey][]string{}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(w, "%s\n", line)
			if err := w.Flush(); err != nil {
				return err
			}
			continue
		}
		k := testKey{e.Package, e.Test}
		switch {
		case e.Action == "build-output":
			fmt.Fprint(w, e.Output)
		case e.Action == "output" && e.Test == "":
			if e.Output != "PASS\n" {
				fmt.Fprint(w, e.Output)
			}
		case e.Action == "output":
			pending[k] = append(pending[k], e.Output)
		case e.Action == "fail" && e.Test != "":
			fmt.Fprint(w, strings.Join(pending[k], ""))
			delete(pending, k)
		case (e.Action == "pass" || e.Action == "skip") && e.Test != "":
			delete(pending, k)
		case e.Action == "fail":
			// The package failed with tests that never ended (a panic,
			// the timeout): their output says what was running.
			var open []testKey
			for p := range pending {
				if p.pkg == e.Package {
					open = append(open, p)
				}
			}
			slices.SortFunc(open, func(a, b testKey) int { return strings.Compare(a.test, b.test) })
			for _, p := range open {
				fmt.Fprintf(w, "--- unfinished: %s\n%s", p.test, strings.Join(pending[p], ""))
				delete(pending, p)
			}
		}
		if e.Action != "output" || e.Test == "" {
			if err := w.Flush(); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return w.Flush()
}

// runTally is what one run's events say of its tests.
type runTally struct {
	label                string
	passed, failed       int
	skipped              map[testKey]reason
	missing              map[reason][]testKey
	untaggedByMessage    map[string]int
	untaggedMessageOrder []string
}

// reason is why a test skipped: a missing part of the machine (kind
// "tool" or "host", and its name), or, untagged, the skip's message.
type reason struct{ kind, name string }

func (r reason) String() string {
	if r.kind != "" {
		return r.name + " missing"
	}
	return r.name
}

// tagged finds the machine-readable word of internal/labtest's skips.
var tagged = regexp.MustCompile(`perflab-skip: (tool|host)=([^\s:]+)`)

// logPrefix is the "    file_test.go:42: " a test's log line starts with.
var logPrefix = regexp.MustCompile(`^\s+[\w.-]+\.go:\d+: `)

func tally(label string, in io.Reader) (*runTally, error) {
	rt := &runTally{label: label, skipped: map[testKey]reason{}, missing: map[reason][]testKey{}, untaggedByMessage: map[string]int{}}
	output := map[testKey][]string{}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Test == "" {
			continue
		}
		k := testKey{e.Package, e.Test}
		switch e.Action {
		case "output":
			output[k] = append(output[k], e.Output)
		case "pass":
			rt.passed++
			delete(output, k)
		case "fail":
			rt.failed++
			delete(output, k)
		case "skip":
			r := skipReason(output[k])
			delete(output, k)
			rt.skipped[k] = r
			if r.kind != "" {
				rt.missing[r] = append(rt.missing[r], k)
			} else {
				if rt.untaggedByMessage[r.name] == 0 {
					rt.untaggedMessageOrder = append(rt.untaggedMessageOrder, r.name)
				}
				rt.untaggedByMessage[r.name]++
			}
		}
	}
	return rt, sc.Err()
}

// skippedPattern reads a run's events and returns a -run pattern that
// matches the top-level tests that skipped, or whose subtests did ("^$",
// which matches none, for none). A pattern's level cannot name a subtest
// beside other tests, so such a test runs whole.
func skippedPattern(in io.Reader) (string, error) {
	var names []string
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Test == "" || e.Action != "skip" {
			continue
		}
		top, _, _ := strings.Cut(e.Test, "/")
		if !slices.Contains(names, top) {
			names = append(names, top)
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	if len(names) == 0 {
		return "^$", nil
	}
	slices.Sort(names)
	for i, n := range names {
		names[i] = regexp.QuoteMeta(n)
	}
	return "^(" + strings.Join(names, "|") + ")$", nil
}

// skipReason reads a skipped test's output: the tagged word if a line has
// one, else the message logged last before its "--- SKIP" line.
func skipReason(lines []string) reason {
	for _, l := range lines {
		if m := tagged.FindStringSubmatch(l); m != nil {
			return reason{kind: m[1], name: m[2]}
		}
	}
	msg := ""
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "--- SKIP") {
			break
		}
		if logPrefix.MatchString(l) {
			msg = strings.TrimSpace(logPrefix.ReplaceAllString(l, ""))
		}
	}
	if msg == "" {
		msg = "(no message)"
	}
	return reason{name: msg}
}

// reportOptions are report's flags.
type reportOptions struct {
	short string   // the label of the -short run
	ci    bool     // fail on a tool's skips
	hosts []string // and on these host needs' skips
}

// report prints the table of skipped tests by reason, a closing line per
// run and a line per missing part; with ci, it returns errMissing when a
// test skipped for a missing tool or a required host need.
func report(w io.Writer, runs []*runTally, o reportOptions) error {
	rows := skipRows(runs, o.short)
	fmt.Fprintln(w, "Skipped tests by reason:")
	width := make([]int, len(runs))
	for i, rt := range runs {
		width[i] = max(len(rt.label), 5)
		fmt.Fprintf(w, "  %*s", width[i], rt.label)
	}
	fmt.Fprintln(w, "  reason")
	if len(rows) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, r := range rows {
		for i, c := range r.counts {
			if c == 0 {
				fmt.Fprintf(w, "  %*s", width[i], "-")
			} else {
				fmt.Fprintf(w, "  %*d", width[i], c)
			}
		}
		fmt.Fprintf(w, "  %s\n", r.label)
	}
	for _, rt := range runs {
		fmt.Fprintf(w, "%s: %d passed, %d failed, %d skipped\n", rt.label, rt.passed, rt.failed, len(rt.skipped))
	}
	failing := 0
	for _, l := range wouldSkip(runs, o.hosts) {
		fmt.Fprintln(w, l.text)
		if l.fails {
			failing++
		}
	}
	if o.ci && failing > 0 {
		return errMissing
	}
	return nil
}

// skipRow is one reason and how many tests of each run skipped for it.
type skipRow struct {
	label  string
	counts []int
}

// skipRows are the table's rows: the missing parts, most tests first,
// then the untagged skips, each run's in the order they came (one row
// for the run named short).
func skipRows(runs []*runTally, short string) []skipRow {
	var missing []reason
	for _, rt := range runs {
		for r := range rt.missing {
			if !slices.Contains(missing, r) {
				missing = append(missing, r)
			}
		}
	}
	most := func(r reason) int {
		n := 0
		for _, rt := range runs {
			n = max(n, len(rt.missing[r]))
		}
		return n
	}
	slices.SortFunc(missing, func(a, b reason) int {
		if c := most(b) - most(a); c != 0 {
			return c
		}
		return strings.Compare(a.String(), b.String())
	})
	var rows []skipRow
	for _, r := range missing {
		row := skipRow{label: fmt.Sprintf("%s (%s)", r, r.kind), counts: make([]int, len(runs))}
		for i, rt := range runs {
			row.counts[i] = len(rt.missing[r])
		}
		rows = append(rows, row)
	}
	untagged := map[string]int{}
	for i, rt := range runs {
		messages := rt.untaggedMessageOrder
		if rt.label == short && len(messages) > 0 {
			messages = []string{shortRow}
		}
		for _, m := range messages {
			j, ok := untagged[m]
			if !ok {
				j = len(rows)
				untagged[m] = j
				rows = append(rows, skipRow{label: "untagged: " + m, counts: make([]int, len(runs))})
			}
			if m == shortRow {
				for _, n := range rt.untaggedByMessage {
					rows[j].counts[i] += n
				}
			} else {
				rows[j].counts[i] += rt.untaggedByMessage[m]
			}
		}
	}
	return rows
}

// shortRow stands for every untagged skip of the -short run.
const shortRow = "-short, or a reason of the test's own"

// skipLine says how many tests a missing part skips, and whether that
// fails CI.
type skipLine struct {
	text  string
	fails bool
}

// wouldSkip says, per missing part, how many tests skipped for it in any
// run (a test counts once however many runs skipped it): those that fail
// CI first (every tool, the hosts needs listed).
func wouldSkip(runs []*runTally, hosts []string) []skipLine {
	would := map[reason]map[testKey]bool{}
	for _, rt := range runs {
		for r, tests := range rt.missing {
			if would[r] == nil {
				would[r] = map[testKey]bool{}
			}
			for _, k := range tests {
				would[r][k] = true
			}
		}
	}
	var lines []skipLine
	for r, set := range would {
		l := skipLine{text: fmt.Sprintf("%s: %s would skip", r, testCount(len(set))), fails: true}
		if r.kind == "host" && !slices.Contains(hosts, r.name) {
			l = skipLine{text: fmt.Sprintf("%s: %s skip (what this machine is: not a failure)", r, testCount(len(set)))}
		}
		lines = append(lines, l)
	}
	slices.SortFunc(lines, func(a, b skipLine) int {
		if a.fails != b.fails {
			if a.fails {
				return -1
			}
			return 1
		}
		return strings.Compare(a.text, b.text)
	})
	return lines
}

// testCount is "1 test" or "N tests".
func testCount(n int) string {
	if n == 1 {
		return "1 test"
	}
	return fmt.Sprintf("%d tests", n)
}
