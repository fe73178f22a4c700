package runfmt

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// A run.json that perflab wrote holds measurements: finite numbers, counts
// of zero or more, percentages from 0 to 100 and shares from 0 to 1, times
// and sizes of zero or more. Read refuses a record that holds anything else
// (a hand-edited or hostile file), naming the field, so no page prints
// "+Inf s", "-5 goroutines" or "explained -50%".

// maxFigure bounds every number of run.json: no time, size, rate or count
// perflab measures comes near it, and a renderer's scaling of one below it
// (seconds to microseconds, a share to a percentage) stays finite.
const maxFigure = 1e15

// Tolerances of the ranges: a percentage or share perflab computed as a
// difference may miss its bound by rounding, by less than a percentage
// prints ("0%" below 0.005%, see units.FormatPct).
const (
	pctSlack   = 0.005
	shareSlack = pctSlack / 100
	signSlack  = 1e-6
)

// checkFigures refuses the first number of r outside what its field can
// hold, as a *FieldError naming the field.
func checkFigures(r *Run) error {
	return checkValue(reflect.ValueOf(r).Elem(), field{})
}

// field is where a value sits: its path, its name and its parent's (the
// rules read both: latency_ms's p50 is a time), or, for a finding's
// figures, the rule of the figure's measure.
type field struct {
	path, name, parent string
	rule               numberRule
	ruled              bool
}

// numberRule is what a number may be besides finite and within maxFigure.
type numberRule int

const (
	anyNumber  numberRule = iota
	amount                // zero or more: a time, a size, cores, a rate, a count
	percentage            // 0 to 100
	share                 // 0 to 1
)

func (f field) at(path, name string) field { return field{path: path, name: name, parent: f.name} }

func checkValue(v reflect.Value, at field) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return checkValue(v.Elem(), at)
	case reflect.Struct:
		return checkStruct(v, at)
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			el := at
			el.path += "[" + strconv.Itoa(i) + "]"
			if err := checkValue(v.Index(i), el); err != nil {
				return err
			}
		}
	case reflect.Map:
		return checkMap(v, at)
	case reflect.Float32, reflect.Float64:
		if err := checkFloat(v.Float(), at); err != nil {
			return &FieldError{Field: at.path, Err: err}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n := v.Int(); n < 0 && at.name != "exit_code" {
			return &FieldError{Field: at.path, Err: fmt.Errorf("%d: a count cannot be negative", n)}
		}
	}
	return nil
}

func checkStruct(v reflect.Value, at field) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case !f.IsExported() || tag == "-":
			continue
		case f.Anonymous && tag == "":
			if err := checkValue(v.Field(i), at); err != nil {
				return err
			}
			continue
		case tag == "":
			tag = f.Name
		}
		path := tag
		if at.path != "" {
			path = at.path + "." + tag
		}
		if err := checkValue(v.Field(i), at.at(path, tag)); err != nil {
			return err
		}
	}
	return nil
}

// checkMap checks a map's values: a finding's figures by their measures,
// other maps' (counts by status, times by kind) by the map's name.
func checkMap(v reflect.Value, at field) error {
	figures := v.Type().Key() == reflect.TypeFor[Figure]()
	for it := v.MapRange(); it.Next(); {
		key := fmt.Sprint(it.Key().Interface())
		el := at
		el.path += "[" + strconv.Quote(key) + "]"
		if figures {
			el.rule, el.ruled = figureRule(Figure(key)), true
		}
		if err := checkValue(it.Value(), el); err != nil {
			return err
		}
	}
	return nil
}

// figureRule is the rule of a figure's measure.
func figureRule(f Figure) numberRule {
	switch f.Measure() {
	case MeasureShare:
		return share
	case MeasureBytesPS:
		return anyNumber // a rate of growth
	}
	return amount
}

// ruleOf is the rule of the number at: a figure's, else by its name.
func ruleOf(at field) numberRule {
	switch {
	case at.ruled:
		return at.rule
	case isPct(at.name):
		switch {
		case at.name == "delta_pct" || at.name == "wait_margin_pct":
			return anyNumber // a change, a margin
		case strings.HasSuffix(at.path, "measurement_cost.pct"):
			return amount // a cost, which may pass the program's own CPU
		}
		return percentage
	case at.name == "share" || strings.HasSuffix(at.name, "_share"):
		return share
	case signed(at.name):
		return anyNumber
	case isAmount(at.name), isAmount(at.parent):
		return amount
	}
	return anyNumber
}

func checkFloat(x float64, at field) error {
	switch r := ruleOf(at); {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return fmt.Errorf("%g: not a finite number", x)
	case math.Abs(x) > maxFigure:
		return fmt.Errorf("%g: too large to be a measurement (at most %g)", x, float64(maxFigure))
	case r == percentage && (x < -pctSlack || x > 100+pctSlack):
		return fmt.Errorf("%g: a percentage outside 0 to 100", x)
	case r == share && (x < -shareSlack || x > 1+shareSlack):
		return fmt.Errorf("%g: a share outside 0 to 1", x)
	case r == amount && x < -signSlack:
		return fmt.Errorf("%g: a time, size or count cannot be negative", x)
	}
	return nil
}

func isPct(name string) bool { return name == "pct" || strings.HasSuffix(name, "_pct") }

// amountSuffixes end the names of times, sizes and rates, which are zero
// or more (latency_ms's percentiles are named by their parent), and
// amountWords are in the names of cores and of costs relative to another.
var (
	amountSuffixes = []string{"_ms", "_s", "_us", "_bytes", "_mib", "_mb", "_per_request", "_per_op", "_per_run", "rps"}
	amountWords    = []string{"cores", "overhead", "seconds"}
)

func isAmount(name string) bool {
	for _, s := range amountSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	for _, w := range amountWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// signed says a number of that name may be negative: a change, a growth
// rate, a margin, an offset in time.
func signed(name string) bool {
	return strings.Contains(name, "delta") || strings.Contains(name, "slope") || strings.Contains(name, "margin") ||
		strings.HasSuffix(name, "_per_s") || name == "start_s" || name == "at_s"
}
