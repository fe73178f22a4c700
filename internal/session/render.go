package session

import (
	"fmt"
	"io"
	"path/filepath"

	"perflab/internal/files"
	"perflab/internal/report"
)

// ReportFile is the run directory's self-contained HTML report.
const ReportFile = "report.html"

// writeReport writes report.html into the run directory: the run's summary,
// charts and findings with its flame graphs. A failure is a warning: the
// run itself is not lost.
func (s *Session) writeReport(flames report.Flames) {
	if err := writeReportFile(filepath.Join(s.dir, ReportFile), s, flames); err != nil {
		s.warn(err.Error())
	}
}

func writeReportFile(path string, s *Session, flames report.Flames) error {
	err := files.WriteAtomic(path, func(w io.Writer) error { return report.WriteHTMLFlames(w, s.run, flames) })
	if err != nil {
		return fmt.Errorf("writing %s: %w", ReportFile, err)
	}
	return nil
}
