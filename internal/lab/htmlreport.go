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
	if cpu := s.prof.Profile(runfmt.ProfileCPU); cpu != nil {
		var buf bytes.Buffer
		opt := analysis.FlameOptions{Title: s.run.ID + ": CPU", Requests: s.run.PerRequestCount(), Scale: s.run.CPUScale(), UserCode: s.userCode()}
		if err := analysis.WriteFlameHTML(&buf, cpu, opt); err != nil {
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
