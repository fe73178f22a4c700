package cli

import (
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"perflab/internal/files"
	"perflab/internal/load"
)

// Typed flag values (vegeta's rateFlag is the model): each one parses and
// checks its value when the flag is parsed, so a bad value is refused
// before anything runs, with the flag's name, the value and the valid
// range (pflag words it `invalid argument "V" for "--flag" flag: ...`,
// and Main exits 2). Commands register flags through them instead of
// pflag's plain Int/Float64/Duration/String, which accept NaN, Inf,
// negative counts and empty strings.

// number is what a rangeValue holds.
type number interface {
	~int | ~int64 | ~float64
}

// rangeValue is a number within [min, max].
type rangeValue[T number] struct {
	p        *T
	min, max T
	parse    func(string) (T, error)
	format   func(T) string
	what     string // "a whole number", "a number", "a duration like 10s"
	typ      string // the placeholder in usage: int, float, duration
}

func (v *rangeValue[T]) String() string { return v.format(*v.p) }
func (v *rangeValue[T]) Type() string   { return v.typ }

func (v *rangeValue[T]) Set(s string) error {
	x, err := v.parse(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("want %s %s", v.what, v.rangeWords())
	}
	if x < v.min || x > v.max {
		return fmt.Errorf("must be %s", v.rangeWords())
	}
	*v.p = x
	return nil
}

func (v *rangeValue[T]) rangeWords() string {
	if float64(v.max) >= float64(maxCount) {
		return "at least " + v.format(v.min)
	}
	return "from " + v.format(v.min) + " to " + v.format(v.max)
}

func newIntValue(p *int, def, min, max int) *rangeValue[int] {
	*p = def
	return &rangeValue[int]{p: p, min: min, max: max, what: "a whole number", typ: "int", parse: strconv.Atoi, format: strconv.Itoa}
}

func newInt64Value(p *int64, def, min, max int64) *rangeValue[int64] {
	*p = def
	return &rangeValue[int64]{p: p, min: min, max: max, what: "a whole number", typ: "int",
		parse:  func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) },
		format: func(x int64) string { return strconv.FormatInt(x, 10) }}
}

// newFloatValue is a finite number in [min, max]: NaN and ±Inf are refused.
func newFloatValue(p *float64, def, min, max float64) *rangeValue[float64] {
	*p = def
	return &rangeValue[float64]{p: p, min: min, max: max, what: "a number", typ: "float", parse: parseFinite,
		format: func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }}
}

// parseFinite accepts plain decimal numbers only: ParseFloat alone would
// also take "inf", "nan", "0x1p3" and "1_0".
func parseFinite(s string) (float64, error) {
	if s == "" || strings.Trim(s, "+-.0123456789eE") != "" {
		return 0, errors.New("not a number")
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, errors.New("not a finite number")
	}
	return x, nil
}

// floorValue is a number that is 0 (what none means, say "no cap") or at
// least floor: a positive value below it means too little to act on.
type floorValue struct {
	*rangeValue[float64]
	floor float64
	zero  string
}

func (v *floorValue) Set(s string) error {
	old := *v.p
	if err := v.rangeValue.Set(s); err != nil {
		return err
	}
	if x := *v.p; x > 0 && x < v.floor {
		*v.p = old
		return fmt.Errorf("must be 0 (%s) or from %s to %s", v.zero, v.format(v.floor), v.format(v.max))
	}
	return nil
}

func newDurationValue(p *time.Duration, def, min, max time.Duration) *rangeValue[time.Duration] {
	*p = def
	return &rangeValue[time.Duration]{p: p, min: min, max: max, what: "a duration like 10s", typ: "duration",
		parse:  time.ParseDuration,
		format: func(d time.Duration) string { return d.String() }}
}

// choiceValue is one of a fixed set of words.
type choiceValue struct {
	p       *string
	choices []string
}

func newChoiceValue(p *string, def string, choices ...string) *choiceValue {
	*p = def
	return &choiceValue{p: p, choices: choices}
}

func (v *choiceValue) String() string { return *v.p }
func (v *choiceValue) Type() string   { return "string" }
func (v *choiceValue) Set(s string) error {
	for _, c := range v.choices {
		if s == c {
			*v.p = s
			return nil
		}
	}
	return fmt.Errorf("want %s", orList(v.choices))
}

// orList words a set of choices: "a, b or c".
func orList(choices []string) string {
	if len(choices) < 2 {
		return strings.Join(choices, "")
	}
	return strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
}

// checkedValue is a string that check accepts (an empty one is refused
// unless check accepts it).
type checkedValue struct {
	p     *string
	typ   string
	check func(string) error
}

func newCheckedValue(p *string, def, typ string, check func(string) error) *checkedValue {
	*p = def
	return &checkedValue{p: p, typ: typ, check: check}
}

func (v *checkedValue) String() string { return *v.p }
func (v *checkedValue) Type() string   { return v.typ }
func (v *checkedValue) Set(s string) error {
	if err := v.check(s); err != nil {
		return err
	}
	*v.p = s
	return nil
}

// listValue is a repeatable flag whose every value check accepts.
type listValue struct {
	p     *[]string
	typ   string
	check func(string) error
}

func (v *listValue) String() string { return "[" + strings.Join(*v.p, ",") + "]" }
func (v *listValue) Type() string   { return v.typ }
func (v *listValue) Set(s string) error {
	if err := v.check(s); err != nil {
		return err
	}
	*v.p = append(*v.p, s)
	return nil
}

// Checks of the string flags.

func nonEmpty(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("empty: give a value")
	}
	return nil
}

// checkRate accepts a --rate: "500", "500/s", "30000/1m".
func checkRate(s string) error {
	_, err := load.ParseRate(s)
	return err
}

// maxStagesTotal bounds the length of a --stages schedule.
const maxStagesTotal = 24 * time.Hour

// checkStages accepts "30s:10,3m:100,30s:0" of at most maxStagesTotal.
func checkStages(s string) error {
	st, err := load.ParseStages(s)
	if err != nil {
		return err
	}
	var total time.Duration
	for _, x := range st {
		total += x.Duration
	}
	if total > maxStagesTotal {
		return fmt.Errorf("the stages last %s in all: at most %s", total, maxStagesTotal)
	}
	return nil
}

func checkShard(s string) error {
	_, _, err := load.ParseShard(s)
	return err
}

// checkHTTPURL accepts an http or https URL with a host and, if given, a
// port from 1 to 65535.
func checkHTTPURL(s string) error {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return errors.New("not a URL (want http://HOST:PORT/...)")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("scheme %q: want http or https (e.g. http://127.0.0.1:8080/)", u.Scheme)
	}
	if u.Hostname() == "" {
		return errors.New("no host (want http://HOST:PORT/...)")
	}
	return checkPort(u.Port(), 1, true)
}

// checkListenAddr accepts HOST:PORT with a port from 0 (any free port) to
// 65535.
func checkListenAddr(s string) error {
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return errors.New("want HOST:PORT, e.g. 127.0.0.1:8080 (port 0 picks a free one)")
	}
	return checkPort(port, 0, false)
}

func checkPort(port string, min int, optional bool) error {
	if port == "" && optional {
		return nil
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < min || n > 65535 {
		return fmt.Errorf("port %q: must be from %d to 65535", port, min)
	}
	return nil
}

func checkRegexp(s string) error {
	if _, err := regexp.Compile(s); err != nil {
		return fmt.Errorf("not a regular expression: %v", err)
	}
	return nil
}

// checkKeyValue accepts an environment variable's KEY=VALUE whose KEY is
// a name a shell can set: letters, digits and _, not starting with a
// digit.
func checkKeyValue(s string) error {
	k, _, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return errors.New("want KEY=VALUE")
	}
	for i, r := range k {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return fmt.Errorf("%q is not a variable name: letters, digits and _, not starting with a digit", k)
		}
	}
	return nil
}

// checkHeader accepts "Name: value" (or "Name: @file") for a header
// perflab does not set itself from other flags.
func checkHeader(s string) error {
	name, _, err := headerFlag(s)
	if err != nil {
		return err
	}
	switch strings.ToLower(name) {
	case "content-length", "transfer-encoding":
		return fmt.Errorf("%s is set by perflab from the body (--body, --body-file): drop -H %q", name, s)
	}
	return nil
}

// headerFlag parses one -H: "Name: value", or "Name: @file" whose value
// is the file's content, sent as it is but for one trailing newline
// (a value over 128 KiB cannot be one argument: Linux bounds each).
func headerFlag(s string) (name, value string, err error) {
	name, value, err = load.ParseHeader(s)
	if err != nil {
		return "", "", err
	}
	path, ok := strings.CutPrefix(value, "@")
	if !ok {
		return name, value, nil
	}
	if path == "" {
		return "", "", fmt.Errorf("header %s: give the file after @ (\"%s: @FILE\")", name, name)
	}
	b, err := files.ReadFile(path, load.MaxHeaderFileBytes)
	if err != nil {
		return "", "", fmt.Errorf("header %s: reading its value: %w", name, err)
	}
	if value, err = load.HeaderValue(b); err != nil {
		return "", "", fmt.Errorf("header %s: the value in %s: %w", name, path, err)
	}
	return name, value, nil
}

// checkRunName accepts a run's label: no path separators, no "..", no
// control characters (it names a directory the UI must be able to open).
func checkRunName(s string) error {
	switch {
	case strings.TrimSpace(s) == "":
		return errors.New("empty: give a label, or leave --name out")
	case strings.ContainsAny(s, `/\`) || strings.Contains(s, ".."):
		return errors.New("a run's name may not hold '/', '\\' or '..': it names a directory")
	case strings.IndexFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0:
		return errors.New("a run's name may not hold control characters")
	case len(s) > 100:
		return errors.New("longer than 100 characters")
	}
	return nil
}

// Input and output files: checked when the flag is parsed, read or
// written when the command runs.

// Limits of the files perflab reads from its flags.
const (
	maxBodyFile    = load.MaxBodyBytes // --body-file: kept in memory and sent per request
	maxTargetsFile = 16 << 20          // --targets
)

// inputFile accepts a regular file of at most max bytes.
func inputFile(max int64) func(string) error {
	return func(s string) error {
		if s == "" {
			return errors.New("empty: give a file")
		}
		f, err := files.Open(s, max)
		if err != nil {
			return err
		}
		return f.Close()
	}
}

// outputFile accepts a path perflab can write (files.CheckOutput).
func outputFile(s string) error { return files.CheckOutput(s) }

// flagSet registers typed values on fs.
type flagSet struct{ fs *pflag.FlagSet }

func (f flagSet) int(p *int, name, short string, def, min, max int, usage string) {
	f.fs.VarP(newIntValue(p, def, min, max), name, short, usage)
}

func (f flagSet) int64(p *int64, name, short string, def, min, max int64, usage string) {
	f.fs.VarP(newInt64Value(p, def, min, max), name, short, usage)
}

func (f flagSet) float(p *float64, name, short string, def, min, max float64, usage string) {
	f.fs.VarP(newFloatValue(p, def, min, max), name, short, usage)
}

// floor registers a number that is 0 (zero says what that means) or from
// floor to max.
func (f flagSet) floor(p *float64, name, short string, floor, max float64, zero, usage string) {
	f.fs.VarP(&floorValue{rangeValue: newFloatValue(p, 0, 0, max), floor: floor, zero: zero}, name, short, usage)
}

func (f flagSet) duration(p *time.Duration, name, short string, def, min, max time.Duration, usage string) {
	f.fs.VarP(newDurationValue(p, def, min, max), name, short, usage)
	f.hideZeroDefault(name)
}

func (f flagSet) choice(p *string, name, def string, choices []string, usage string) {
	f.fs.Var(newChoiceValue(p, def, choices...), name, usage)
}

func (f flagSet) checked(p *string, name, short, def, typ string, check func(string) error, usage string) {
	f.fs.VarP(newCheckedValue(p, def, typ, check), name, short, usage)
}

func (f flagSet) list(p *[]string, name, short, typ string, check func(string) error, usage string) {
	f.fs.VarP(&listValue{p: p, typ: typ, check: check}, name, short, usage)
	f.hideZeroDefault(name)
}

// hideZeroDefault keeps the help from printing "(default 0s)" or
// "(default [])" for a typed value left at its zero: pflag knows those as
// zero for its own types only, and the usage says what zero means.
func (f flagSet) hideZeroDefault(name string) {
	if fl := f.fs.Lookup(name); fl != nil && (fl.DefValue == "0s" || fl.DefValue == "[]") {
		fl.DefValue = ""
	}
}

// maxCount bounds counts that have no natural limit (requests, runs).
const maxCount = math.MaxInt64 / 4
