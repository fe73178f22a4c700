package analysis

import (
	"fmt"
	"regexp"
	"sort"

	"github.com/google/pprof/profile"

	"perflab/internal/stacks"
	"perflab/internal/units"
)

// TopOptions selects what a top table shows.
type TopOptions struct {
	// SampleIndex is a sample type name ("cpu", "alloc_space") or index;
	// "" picks the profile's default, else its last type, like pprof.
	SampleIndex string
	// Cum sorts by cumulative instead of flat cost.
	Cum bool
	// User lists user functions only, each charged with the cost of the
	// standard-library and runtime frames it called (see Row.Attributed);
	// stacks without user code appear under their entry function.
	User bool
	// N limits the rows; 0 or less shows all.
	N int
	// Requests, when > 0, adds per-request columns.
	Requests int64
	// Scale multiplies the per-request columns: a run's CPU profile is
	// scaled to the CPU measured (runfmt.Run.CPUScale), so every page
	// prints one number per function; 0 means 1.
	Scale float64
	// Focus, when set, keeps only stacks with a frame matching this regexp.
	// Percentages stay relative to the whole profile.
	Focus string
	// UserCode adjusts what counts as user code.
	UserCode UserCode
	// Lines makes each row one source line of a function (pprof's
	// -lines), when the profile has line numbers.
	Lines bool
}

// Row is one function of a top table. Costs are in the sample unit.
type Row struct {
	Function, File string
	// Line is the source line of a row at line granularity (0 otherwise).
	Line int64
	// Flat is the cost with the function as leaf; with TopOptions.User it
	// also holds Attributed.
	Flat, Cum               int64
	FlatPct, CumPct, SumPct float64
	// FlatPerReq and CumPerReq are per request, in the sample unit (ns, bytes).
	FlatPerReq, CumPerReq float64
	// Attributed is the cost of non-user frames charged to this function as
	// their nearest user caller.
	Attributed int64
	User       bool
}

// Table is a top table.
type Table struct {
	// SampleType and Unit describe the values ("cpu", "nanoseconds").
	SampleType, Unit string
	// Total is the cost of the whole profile; Measured the part of it
	// that is perflab's own measuring (see measuring.go), in no row.
	Total    int64
	Measured int64
	Requests int64
	// Scale is what the per-request columns were multiplied by (see
	// TopOptions.Scale); 0 or 1 for none.
	Scale float64
	Rows  []Row
	// Shown is the sum of Flat over Rows.
	Shown int64
	// Funcs is the number of functions before the N limit.
	Funcs int
	// User says rows are user functions charged with attributed cost.
	User bool
	// Lines says rows are source lines; NoLines that they were asked for
	// but the profile has no line numbers, so rows are functions.
	Lines, NoLines bool
	// Comments are the profile's own notes (perflab's parsers say there
	// when a recording held several events, for example).
	Comments []string
}

// Top computes the top table of p.
func Top(p *profile.Profile, opt TopOptions) (*Table, error) {
	if opt.Lines {
		return topOf(stacks.FromProfileLines(p), opt)
	}
	return topOf(stacks.FromProfile(p), opt)
}

// TopFile computes the top table of the profile file at path (gzipped or
// not) without building a *profile.Profile.
func TopFile(path string, opt TopOptions) (*Table, error) {
	s, err := stacks.ReadFile(path, opt.Lines)
	if err != nil {
		return nil, err
	}
	return topOf(s, opt)
}

func topOf(s *stacks.Set, opt TopOptions) (*Table, error) {
	vi, err := s.SampleIndex(opt.SampleIndex)
	if err != nil {
		return nil, err
	}
	keep, err := focusFilter(s, opt.Focus)
	if err != nil {
		return nil, err
	}
	c := NewCosts(s, vi, opt.UserCode, keep)
	t := &Table{SampleType: s.SampleTypes[vi].Type, Unit: s.SampleTypes[vi].Unit, Total: c.total, Measured: c.measured, Requests: opt.Requests, Scale: opt.Scale, User: opt.User,
		Lines: s.Lines && s.HasLines, NoLines: s.Lines && !s.HasLines, Comments: s.Comments}
	for f := range s.Funcs {
		r := c.row(int32(f), opt.User)
		if r.Flat == 0 && r.Cum == 0 || opt.User && !r.User && c.charg[f] == 0 {
			continue
		}
		t.Rows = append(t.Rows, r)
	}
	sortRows(t.Rows, opt.Cum)
	t.Funcs = len(t.Rows)
	if opt.N > 0 && len(t.Rows) > opt.N {
		t.Rows = t.Rows[:opt.N]
	}
	t.fill()
	return t, nil
}

// row builds the row of function f; flat is charged flat when user is set.
func (c *Costs) row(f int32, user bool) Row {
	fi := c.set.Funcs[f]
	r := Row{Function: fi.Name, File: fi.File, Line: fi.Line, Flat: c.flat[f], Cum: c.cum[f], Attributed: c.attr[f], User: c.user[f]}
	if user {
		r.Flat = c.charg[f]
	}
	return r
}

// fill sets percentages and per-request values.
func (t *Table) fill() {
	var sum int64
	for i := range t.Rows {
		r := &t.Rows[i]
		sum += r.Flat
		r.FlatPct, r.CumPct, r.SumPct = Pct(r.Flat, t.Total), Pct(r.Cum, t.Total), Pct(sum, t.Total)
		if t.Requests > 0 {
			r.FlatPerReq = PerRequest(r.Flat, t.Requests, t.Scale)
			r.CumPerReq = PerRequest(r.Cum, t.Requests, t.Scale)
		}
	}
	t.Shown = sum
}

// PerRequest is v per request, multiplied by scale (0 means 1): a run's
// CPU profile scaled to the CPU measured.
func PerRequest(v, requests int64, scale float64) float64 {
	if requests <= 0 {
		return 0
	}
	if scale <= 0 {
		scale = 1
	}
	return float64(v) * scale / float64(requests)
}

// ScaleNote says how a profile's per-request figures were scaled, "" when
// they were not.
func ScaleNote(scale float64) string {
	if scale <= 0 || scale == 1 {
		return ""
	}
	return "per request: the profile scaled ×" + units.Sig(scale) + " to the CPU measured, as every page of the run prints it"
}

// Pct is v as a percentage of total (0 when total is 0).
func Pct(v, total int64) float64 {
	if total == 0 {
		return 0
	}
	return 100 * float64(v) / float64(total)
}

// sortRows orders by flat (or cum) descending, then by name.
func sortRows(rows []Row, cum bool) {
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		ka, kb := a.Flat, b.Flat
		if cum {
			ka, kb = a.Cum, b.Cum
		}
		if ka != kb {
			return ka > kb
		}
		if a.Cum != b.Cum {
			return a.Cum > b.Cum
		}
		if a.Function != b.Function {
			return a.Function < b.Function
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
}

// focusFilter returns a stack filter for the regexp re, or nil for "".
func focusFilter(s *stacks.Set, re string) (func([]int32) bool, error) {
	if re == "" {
		return nil, nil
	}
	rx, err := regexp.Compile(re)
	if err != nil {
		return nil, fmt.Errorf("compiling focus %q: %w", re, err)
	}
	match := make([]bool, len(s.Funcs))
	for i, f := range s.Funcs {
		match[i] = rx.MatchString(f.Name)
	}
	return func(st []int32) bool {
		for _, f := range st {
			if match[f] {
				return true
			}
		}
		return false
	}, nil
}
