package report

import (
	"fmt"
	"io"
	"strings"

	"perflab/internal/units"
)

// MarkdownLimit is the most a markdown summary may weigh: under GitHub's
// 65,536-character limit for a pull request comment, and far under the
// 1 MiB of a job's step summary ($GITHUB_STEP_SUMMARY).
const MarkdownLimit = 60 << 10

// Verdict marks of the markdown summaries.
const (
	markPass = "✅"
	markFail = "❌"
	markWarn = "⚠️"
)

// mdText escapes s for GitHub-flavoured markdown text, on one line (so it
// also fits a table cell): the characters that start emphasis, links, code,
// HTML, entities, tables and strikethrough are backslash-escaped, and so is
// a first character that would start a heading or a list.
func mdText(s string) string {
	var b strings.Builder
	mdEscape(&b, oneLineText(s))
	return b.String()
}

// mdEscape writes s to b escaped as mdText does, s starting the line when
// b is empty.
func mdEscape(b *strings.Builder, s string) {
	first := b.Len() == 0
	for i, r := range s {
		if strings.ContainsRune("\\`*_[]<>|~&", r) || first && i == 0 && strings.ContainsRune("#+-", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
}

// mdCode is s as a code span that survives a table cell: a fence of more
// backticks than s holds in a row, and pipes escaped (GFM splits cells
// before it reads code spans, and drops the backslash of "\|" in them).
func mdCode(s string) string {
	s = oneLineText(s)
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + strings.ReplaceAll(s, "|", `\|`) + pad + fence
}

// oneLineText folds newlines and tabs into spaces and cuts very long text.
func oneLineText(s string) string {
	return units.Shorten(strings.Join(strings.Fields(s), " "), 400)
}

// mdTable writes a GFM table; align holds "l" or "r" per column.
func mdTable(b *strings.Builder, align string, head []string, rows [][]string) {
	cell := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			if c == "" {
				c = " "
			}
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
	}
	cell(head)
	var sep []string
	for i := range head {
		if i < len(align) && align[i] == 'r' {
			sep = append(sep, "--:")
		} else {
			sep = append(sep, ":--")
		}
	}
	cell(sep)
	for _, r := range rows {
		for len(r) < len(head) {
			r = append(r, "")
		}
		cell(r[:len(head)])
	}
	b.WriteString("\n")
}

// writeFitted writes fitMarkdown's text to w.
func writeFitted(w io.Writer, limit, levels int, render func(level int) string) error {
	_, err := io.WriteString(w, fitMarkdown(limit, levels, render))
	return err
}

// fitMarkdown renders at decreasing levels of detail until the text fits
// limit bytes; past the last level it cuts the text at a line, saying so.
func fitMarkdown(limit int, levels int, render func(level int) string) string {
	if limit <= 0 {
		limit = MarkdownLimit
	}
	var s string
	for level := range levels {
		if s = render(level); len(s) <= limit {
			return s
		}
	}
	note := fmt.Sprintf("\n\n_(cut at %d KiB: the full comparison is in the --json output and the run directories)_\n", limit>>10)
	cut := s[:limit-len(note)]
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i]
	}
	return cut + note
}
