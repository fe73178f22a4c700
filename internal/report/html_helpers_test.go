package report

import (
	"io"

	"perflab/internal/runfmt"
)

// writeHTML writes a run's report with its CPU flame graph page (nil: none).
func writeHTML(w io.Writer, r *runfmt.Run, flame []byte) error {
	return WriteHTMLWith(w, r, HTMLOptions{Flame: flame})
}
