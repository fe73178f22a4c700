package analysis

// The JSON records of `perflab top --json` and `perflab list --json`: the
// tables as computed, costs in the profile's unit (Unit), per request
// where the run's request count is known.

// ProfileRecord is what a top table's and a listing's records first say
// of the profile: its sample type and unit, its total, and the run's
// requests.
type ProfileRecord struct {
	SampleType string `json:"sample_type"`
	Unit       string `json:"unit"`
	Total      int64  `json:"total"`
	Requests   int64  `json:"requests,omitempty"`
	// Scale is what the per-request figures were multiplied by to stand
	// for the CPU measured (absent: 1): a function's cost per request is
	// its cost × Scale / Requests.
	Scale float64 `json:"scale,omitempty"`
	// Measured is the part of Total that is perflab's own measuring,
	// in no function (see measuring.go).
	Measured int64 `json:"measured,omitempty"`
}

// TopRecord is a top table.
type TopRecord struct {
	ProfileRecord
	// Functions counts the rows before the -n limit.
	Functions int  `json:"functions"`
	User      bool `json:"user,omitempty"`
	Lines     bool `json:"lines,omitempty"`
	NoLines   bool `json:"no_lines,omitempty"`
	// Rows are the table's rows, in its order.
	Rows     []TopRowRecord `json:"rows"`
	Comments []string       `json:"comments,omitempty"`
}

// TopRowRecord is one row of a top table.
type TopRowRecord struct {
	Function string  `json:"function"`
	File     string  `json:"file,omitempty"`
	Line     int64   `json:"line,omitempty"`
	Flat     int64   `json:"flat"`
	FlatPct  float64 `json:"flat_pct"`
	SumPct   float64 `json:"sum_pct"`
	Cum      int64   `json:"cum"`
	CumPct   float64 `json:"cum_pct"`
	// FlatPerRequest and CumPerRequest are in Unit per request.
	FlatPerRequest float64 `json:"flat_per_request,omitempty"`
	CumPerRequest  float64 `json:"cum_per_request,omitempty"`
	// Attributed is the library and runtime cost charged to a user
	// function (with --user, Flat includes it).
	Attributed int64 `json:"attributed,omitempty"`
	UserCode   bool  `json:"user_code"`
}

// Record is t as `perflab top --json` prints it.
func (t *Table) Record() TopRecord {
	r := TopRecord{ProfileRecord: ProfileRecord{t.SampleType, t.Unit, t.Total, t.Requests, t.Scale, t.Measured}, Functions: t.Funcs,
		User: t.User, Lines: t.Lines, NoLines: t.NoLines, Rows: []TopRowRecord{}, Comments: t.Comments}
	for _, row := range t.Rows {
		r.Rows = append(r.Rows, TopRowRecord{Function: row.Function, File: row.File, Line: row.Line,
			Flat: row.Flat, FlatPct: row.FlatPct, SumPct: row.SumPct, Cum: row.Cum, CumPct: row.CumPct,
			FlatPerRequest: row.FlatPerReq, CumPerRequest: row.CumPerReq, Attributed: row.Attributed, UserCode: row.User})
	}
	return r
}

// ListRecord is a listing.
type ListRecord struct {
	ProfileRecord
	NoLines   bool               `json:"no_lines,omitempty"`
	Functions []ListedFuncRecord `json:"functions"`
	Comments  []string           `json:"comments,omitempty"`
}

// ListedFuncRecord is one listed function.
type ListedFuncRecord struct {
	Function string `json:"function"`
	File     string `json:"file,omitempty"`
	Flat     int64  `json:"flat"`
	Cum      int64  `json:"cum"`
	// Source is the file read, SourceError why none was.
	Source      string `json:"source,omitempty"`
	SourceError string `json:"source_error,omitempty"`
	// Changed: sampled lines no longer match the source; Modified: the
	// file changed after the profile was taken.
	Changed  bool         `json:"changed,omitempty"`
	Modified bool         `json:"modified,omitempty"`
	Lines    []ListedLine `json:"lines"`
	Calls    []Call       `json:"calls,omitempty"`
	Callees  []CalleeLine `json:"callees,omitempty"`
}

// Record is l as `perflab list --json` prints it.
func (l *Listing) Record() ListRecord {
	r := ListRecord{ProfileRecord: ProfileRecord{l.SampleType, l.Unit, l.Total, l.Requests, l.Scale, l.Measured}, NoLines: l.NoLines,
		Functions: []ListedFuncRecord{}, Comments: l.Comments}
	for _, f := range l.Funcs {
		fr := ListedFuncRecord{Function: f.Name, File: f.File, Flat: f.Flat, Cum: f.Cum, Changed: f.Changed, Modified: f.Modified,
			Lines: append([]ListedLine{}, f.Lines...), Calls: f.Calls, Callees: f.Callees}
		if s := f.Source; s != nil {
			fr.Source = s.Path
			if s.Err != nil {
				fr.SourceError = s.Err.Error()
			}
		}
		r.Functions = append(r.Functions, fr)
	}
	return r
}
