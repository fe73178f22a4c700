package lab

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"

	"perflab/internal/analysis"
	"perflab/internal/files"
	"perflab/internal/report"
	"perflab/internal/runfmt"
)

// reportFile is the run directory's self-contained HTML report.
const reportFile = "report.html"

// writeReport writes report.html into the run directory: the run's summary,
// charts and findings with the CPU flame graph (per request when the run
// had requests). A failure is a warning: the run itself is not lost.
func (s *session) writeReport() {
	var flame []byte
	if s.prof != nil && s.prof.cpu != nil {
		var requests int64
		if s.run.Load != nil {
			requests = s.run.Load.Requests
		}
		var buf bytes.Buffer
		opt := analysis.FlameOptions{Title: s.run.ID + ": CPU", Requests: requests}
		if err := analysis.WriteFlameHTML(&buf, s.prof.cpu, opt); err != nil {
			s.warn("flame graph for report.html: " + err.Error())
		} else {
			flame = buf.Bytes()
		}
	}
	flames := report.Flames{CPU: flame, OffCPU: s.offCPUFlame()}
	if err := writeReportFile(filepath.Join(s.dir, reportFile), s, flames); err != nil {
		s.warn(err.Error())
	}
}

func writeReportFile(path string, s *session, flames report.Flames) error {
	err := files.WriteAtomic(path, func(w io.Writer) error { return report.WriteHTMLFlames(w, s.run, flames) })
	if err != nil {
		return fmt.Errorf("writing %s: %w", reportFile, err)
	}
	return nil
}

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
func (s *session) save(runErr error) error {
	path := filepath.Join(s.dir, runfmt.FileName)
	if err := runfmt.WriteFile(s.dir, s.run); err != nil {
		s.run.Status = runfmt.StatusPartial
		s.run.PartialReason = oneLine("not saved: " + err.Error())
		return &SaveError{Path: path, Err: err}
	}
	warnings := len(s.run.Warnings)
	s.writeReport()
	if len(s.run.Warnings) > warnings {
		_ = runfmt.WriteFile(s.dir, s.run) // best effort: the first record stands
	}
	return runErr
}
