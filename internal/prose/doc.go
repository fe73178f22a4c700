// Package prose holds the words of perflab's findings. A finding is
// stored as data (runfmt.Finding: its kind, figures, settings, evidence
// and advice key, made by package findings); its words are written when
// it is shown, from that data only, by the wording of its kind (Wording):
// a title, a detail and the words of its advice. The words are Prose:
// spans of text, code (a function, a call) and figures, each figure
// formatted through package units by its measure (FormatFigure). Package
// report renders the spans as plain text, markdown or HTML, so one figure
// reads the same in the terminal, a pull-request comment and report.html.
// Findings of runs of schema 3 and older keep the title and detail they
// stored.
//
// Each finding's words are in the file named as its rule's in package
// findings (gc.go, owner.go, waits.go, ...); a wording reads a view of
// the finding (v.fig, v.has, v.set, v.funcs) and writes with p.say, whose
// "%v" take spans (code, word, fig). The words of a stuck service's
// groups of threads (StuckGroupText, CountWord) are here too.
//
// The package imports runfmt, units and funcname only: it computes
// nothing, and package findings does not import it.
package prose
