package lab

import (
	"perflab/internal/prose"
	"perflab/internal/runfmt"
)

// title and detail are a finding's words as plain text, as the terminal
// shows them.
func title(f runfmt.Finding) string  { return prose.Wording(&f).Title.Text() }
func detail(f runfmt.Finding) string { return prose.Wording(&f).Detail.Text() }
