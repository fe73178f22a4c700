package lab

import (
	"fmt"
	"path/filepath"

	"perflab/internal/decide"
	"perflab/internal/runfmt"
)

// SaveError is a run whose run.json could not be written (a full disk, a
// directory that became read-only): what it measured is in the Result
// only, for the caller to print.
type SaveError struct {
	Path string
	Err  error
}

func (e *SaveError) Error() string {
	return fmt.Sprintf("the run could not be saved: %v", e.Err)
}

func (e *SaveError) Unwrap() error { return e.Err }

// save writes the run directory's record, run.json, first, then the
// optional report.html (whose failure is a warning, recorded by writing
// run.json again): a full disk never costs the record. runErr is the run's
// own error, returned unless saving failed.
func (s *session) save(runErr error, dec *decide.Decision) error {
	path := filepath.Join(s.dir, runfmt.FileName)
	if err := runfmt.WriteFile(s.dir, s.run); err != nil {
		s.run.Status, s.run.PartialKind = runfmt.StatusPartial, runfmt.PartialNotSaved
		s.run.PartialReason = oneLine("not saved: " + err.Error())
		return &SaveError{Path: path, Err: err}
	}
	warnings := len(s.run.Warnings)
	s.writeReport(dec.Flames())
	if len(s.run.Warnings) > warnings {
		_ = runfmt.WriteFile(s.dir, s.run) // best effort: the first record stands
	}
	return runErr
}
