package analysis

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"perflab/internal/funcname"
	"perflab/internal/units"
)

// WriteText writes the listing in pprof's list layout, with per-request
// columns when Requests > 0:
//
//	ROUTINE ======================== main.logRequest in /src/fmtprint/main.go
//	      10ms      2.45s (flat, cum) 97.61% of Total; per request 5µs, 1.22ms
//	      flat        cum   flat/req    cum/req
//	         .          .          .          .     68:func logRequest(out io.Writer, d *cacheResponse) {
//	      10ms      2.45s        5µs     1.22ms     69:	fmt.Fprintln(out, "resp", d, nil)
//
// A line marked "!" after its number is sampled but no longer in the
// function in the source read (the file changed since the build). Then
// come the costliest lines of the functions it calls.
func (l *Listing) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	writeHead(bw, l.SampleType, l.Comments)
	fmt.Fprintf(bw, "Total: %s", units.FormatValue(float64(l.Total), l.Unit))
	if l.Requests > 0 {
		fmt.Fprintf(bw, " over %d requests, %s/request", l.Requests, units.FormatValue(l.per(l.Total), l.Unit))
	}
	bw.WriteString("\n")
	writeProfileNotes(bw, l.Scale, l.Requests, l.NoLines, "showing functions")
	writeMeasuredNote(bw, l.Measured, l.Total, l.Unit, "in no function")
	for i := range l.Funcs {
		l.writeFunc(bw, &l.Funcs[i])
	}
	return bw.Flush()
}

// per is v per request, scaled.
func (l *Listing) per(v int64) float64 { return PerRequest(v, l.Requests, l.Scale) }

// cols formats a flat/cum pair and, with requests, their per-request values.
func (l *Listing) cols(flat, cum int64) string {
	v := func(x int64) string {
		if x == 0 {
			return "."
		}
		return units.FormatValue(float64(x), l.Unit)
	}
	s := fmt.Sprintf("%10s %10s", v(flat), v(cum))
	if l.Requests > 0 {
		pr := func(x int64) string {
			if x == 0 {
				return "."
			}
			return units.FormatValue(l.per(x), l.Unit)
		}
		s += fmt.Sprintf(" %10s %10s", pr(flat), pr(cum))
	}
	return s
}

func (l *Listing) writeFunc(bw *bufio.Writer, f *ListedFunc) {
	fmt.Fprintf(bw, "ROUTINE ======================== %s in %s\n", f.Name, orUnknown(f.File))
	fmt.Fprintf(bw, "%10s %10s (flat, cum) %.2f%% of Total", units.FormatValue(float64(f.Flat), l.Unit), units.FormatValue(float64(f.Cum), l.Unit), Pct(f.Cum, l.Total))
	if l.Requests > 0 {
		fmt.Fprintf(bw, "; per request %s flat, %s cum", units.FormatValue(l.per(f.Flat), l.Unit), units.FormatValue(l.per(f.Cum), l.Unit))
	}
	bw.WriteString("\n")
	if !l.NoLines {
		l.writeSourceNotes(bw, f)
		head := fmt.Sprintf("%10s %10s", "flat", "cum")
		if l.Requests > 0 {
			head += fmt.Sprintf(" %10s %10s", "flat/req", "cum/req")
		}
		bw.WriteString(head + "\n")
		for _, ln := range f.Lines {
			if ln.Line == 0 {
				bw.WriteString(strings.Repeat(" ", len(head)) + "        ...\n")
				continue
			}
			mark := ":"
			if ln.Mismatch {
				mark = "!"
			}
			fmt.Fprintf(bw, "%s %8d%s%s\n", l.cols(ln.Flat, ln.Cum), ln.Line, mark, expandTabs(ln.Text))
		}
	}
	if len(f.Calls) > 0 {
		bw.WriteString(" Calls it makes (cum: the callee and everything below it):\n")
		for _, c := range f.Calls {
			from := ""
			if c.Line > 0 {
				from = "line " + strconv.FormatInt(c.Line, 10) + " -> "
			}
			fmt.Fprintf(bw, "%s  %s%s\n", l.cols(0, c.Cum), from, funcname.Label(c.Function, c.File))
		}
	}
	if len(f.Callees) == 0 {
		return
	}
	if l.NoLines {
		bw.WriteString(" Costliest functions it calls (flat: where the cost landed below it):\n")
	} else {
		bw.WriteString(" Costliest lines in the functions it calls (flat: where the cost landed below it):\n")
	}
	for _, c := range f.Callees {
		loc := funcname.Label(c.Function, c.File)
		if c.Line > 0 {
			loc = c.Function + " " + shortPath(c.File) + ":" + strconv.FormatInt(c.Line, 10)
		}
		fmt.Fprintf(bw, "%s  %s", l.cols(c.Flat, c.Cum), loc)
		if t := strings.TrimSpace(c.Text); t != "" {
			fmt.Fprintf(bw, "   %s", t)
		}
		bw.WriteString("\n")
	}
}

// writeSourceNotes says where the source came from, or why it is missing.
func (l *Listing) writeSourceNotes(bw *bufio.Writer, f *ListedFunc) {
	switch {
	case f.Source == nil:
	case f.Source.Err != nil:
		fmt.Fprintf(bw, "Note: %v: showing the sampled lines only\n", f.Source.Err)
	case f.Source.Path != f.File:
		fmt.Fprintf(bw, "Source: %s\n", f.Source.Path)
	}
	if f.Modified {
		fmt.Fprintf(bw, "Note: %s was modified after the profile was taken (%s): lines may have moved\n",
			f.Source.Path, f.Source.ModTime.Format(time.DateTime))
	}
	if f.EndLinesOnly {
		bw.WriteString("Note: every sampled line is an \"end\": the profiler reported this Ruby method's frames at its last line (rbspy does with Ruby 3.1), so the per-line costs below name no code; the calls it makes still do\n")
	}
	if f.Changed {
		bw.WriteString("Note: lines marked ! no longer lie in this function in the source: it changed since the build\n")
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}

// shortPath keeps the last two elements of a path: "fmt/print.go".
func shortPath(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return p
	}
	if j := strings.LastIndexByte(p[:i], '/'); j >= 0 {
		return p[j+1:]
	}
	return p
}

// expandTabs replaces tabs by spaces to the next multiple of 4, so listed
// code lines up whatever the terminal's tab stops.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := 4 - col%4
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}
