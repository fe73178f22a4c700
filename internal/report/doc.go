// Package report renders perflab's records for people: the hey-style text
// summary of a load, the verdict of a run, comparison tables and the
// self-contained HTML report. It computes rows first and then writes them to an
// io.Writer; it never reads the run store itself.
package report
