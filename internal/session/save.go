package session

import (
	"fmt"
	"path/filepath"

	"perflab/internal/report"
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

// Save is the save stage: it writes the run directory's record,
// run.json, before the optional report.html (see Render): a full disk
// never costs the record. A run that could not be saved is partial, and
// its error a *SaveError.
func (s *Session) Save() error {
	path := filepath.Join(s.dir, runfmt.FileName)
	if err := runfmt.WriteFile(s.dir, s.run); err != nil {
		s.run.Status, s.run.PartialKind = runfmt.StatusPartial, runfmt.PartialNotSaved
		s.run.PartialReason = OneLine("not saved: " + err.Error())
		return &SaveError{Path: path, Err: err}
	}
	return nil
}

// Render is the render stage, after Save: report.html, from the run's
// record and the flame graphs flames draws. A failure is a warning,
// recorded by writing run.json again.
func (s *Session) Render(flames func() report.Flames) {
	warnings := len(s.run.Warnings)
	s.writeReport(flames())
	if len(s.run.Warnings) > warnings {
		_ = runfmt.WriteFile(s.dir, s.run) // best effort: the first record stands
	}
}
