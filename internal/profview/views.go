package profview

import (
	"errors"
	"io"
	"path/filepath"
	"slices"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/capture"
	"perflab/internal/files"
	"perflab/internal/runfmt"
	"perflab/internal/stacks"
)

// TopOptions are the choices of a top table; the sample type, the
// requests, the scale and what is user code come from the Source.
type TopOptions struct {
	// Cum sorts by cumulative instead of flat cost.
	Cum bool
	// User lists user functions only, each charged with the library and
	// runtime code it calls.
	User bool
	// N limits the rows; 0 shows all.
	N int
	// Focus, when set, keeps only stacks with a function matching this
	// regexp.
	Focus string
	// Lines makes each row a source line instead of a function.
	Lines bool
}

// Top computes the top table of the source. Every error is the input's:
// the file is not a profile, or lacks the sample type.
func (s *Source) Top(opt TopOptions) (*analysis.Table, error) {
	o := analysis.TopOptions{
		SampleIndex: s.sample, Requests: s.requests, Scale: s.scale, UserCode: s.userCode,
		Cum: opt.Cum, User: opt.User, N: opt.N, Focus: opt.Focus, Lines: opt.Lines,
	}
	var t *analysis.Table
	var err error
	if s.prof != nil {
		t, err = analysis.Top(s.prof, o)
	} else {
		t, err = analysis.TopFile(s.path, o)
	}
	return t, asInput(err)
}

// ListOptions are the choices of a source listing.
type ListOptions struct {
	// Callees is how many of the costliest lines of the functions each
	// listed function calls to show under it; 0 or less shows none.
	Callees int
	// SourcePath are directories to look for source files under, after
	// the path the profile records. A run's parent directory is searched
	// last: its service usually ran from there.
	SourcePath []string
}

// List computes the listing of the functions matching pattern, which the
// caller has checked is a valid regexp. Every error is the input's; no
// function matching is said with the source's title.
func (s *Source) List(pattern string, opt ListOptions) (*analysis.Listing, error) {
	o := analysis.ListOptions{SampleIndex: s.sample, Requests: s.requests, Scale: s.scale, Callees: opt.Callees}
	if o.Callees == 0 {
		o.Callees = -1 // analysis reads 0 as its default
	}
	o.Sources = &analysis.Sources{SearchPath: opt.SourcePath}
	if s.run != "" {
		// A run's service usually ran from the run directory's parent:
		// relative source paths are found there too.
		o.Sources.SearchPath = append(slices.Clip(opt.SourcePath), filepath.Dir(filepath.Dir(s.run)))
	}
	l, err := analysis.ListFile(s.path, pattern, o)
	var nm *analysis.NoMatchError
	if errors.As(err, &nm) {
		return nil, inputErr("%s: %w", s.title, err)
	}
	return l, asInput(err)
}

// Flame is a source read for an interactive flame graph page.
type Flame struct {
	opt  analysis.FlameOptions
	prof *profile.Profile
	file *analysis.FlameFile
}

// Flame reads the source for a flame graph page whose costs are per
// request for a run. minFraction folds frames below this fraction of the
// total into their parent: 0 is analysis.DefaultMinFraction, a negative
// value keeps all. A file it cannot read is the input's error.
func (s *Source) Flame(minFraction float64) (*Flame, error) {
	f := &Flame{prof: s.prof, opt: analysis.FlameOptions{
		Title: s.title, SampleIndex: s.sample, Requests: s.requests, Scale: s.scale,
		MinFraction: minFraction, UserCode: s.userCode,
	}}
	if s.prof == nil {
		// The page reads the file with the lean decoder: a large
		// profile costs little more to draw than to list with top.
		ff, err := analysis.ReadFlameFile(s.path)
		if err != nil {
			return nil, asInput(err)
		}
		f.file = ff
	}
	return f, nil
}

// WriteHTML writes the page, one self-contained HTML file. A sample type
// the profile lacks is the input's error.
func (f *Flame) WriteHTML(w io.Writer) error {
	var err error
	if f.file != nil {
		err = f.file.WriteHTML(w, f.opt)
	} else {
		err = analysis.WriteFlameHTML(w, f.prof, f.opt)
	}
	if errors.Is(err, stacks.ErrNoSampleType) {
		return asInput(err)
	}
	return err
}

// Export is a source's profile read whole, to write in another tool's
// format, of the profile's values (CPU nanoseconds, bytes).
type Export struct {
	prof *profile.Profile
	opt  analysis.ExportOptions
}

// Export reads the source for an export; exporter names the program in a
// speedscope file ("perflab 1.2"). A file it cannot read is the input's
// error.
func (s *Source) Export(exporter string) (*Export, error) {
	p := s.prof // a profile perflab derived (a wall-time view), else the file
	if p == nil {
		data, err := files.ReadFile(s.path, runfmt.MaxProfileBytes)
		if err != nil {
			return nil, inputErr("reading profile: %w", err)
		}
		if p, err = capture.Decode(data); err != nil {
			return nil, inputErr("reading profile %s: %w", s.path, err)
		}
	}
	return &Export{prof: p, opt: analysis.ExportOptions{SampleIndex: s.sample, Name: s.title, Exporter: exporter}}, nil
}

// WriteCollapsed writes Brendan Gregg's folded stacks ("root;caller;leaf
// VALUE"), which flamegraph.pl, inferno and speedscope read.
func (e *Export) WriteCollapsed(w io.Writer) error {
	return analysis.WriteCollapsed(w, e.prof, e.opt)
}

// WriteSpeedscope writes speedscope's JSON file format.
func (e *Export) WriteSpeedscope(w io.Writer) error {
	return analysis.WriteSpeedscope(w, e.prof, e.opt)
}
