package lab

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"perflab/internal/analysis"
	"perflab/internal/report"
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
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing %s: %w", reportFile, err)
	}
	err = report.WriteHTMLFlames(f, s.run, flames)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", reportFile, err)
	}
	return nil
}
