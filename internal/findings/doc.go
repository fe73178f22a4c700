// Package findings applies perflab's rules to a run's profiles and
// summaries (FindingInput) and returns the findings, ranked by the time
// per request they explain: what costs CPU (library work under a user
// function, the functions that own the most cost, a library constructor
// built on every request, the garbage collector, a CPU budget), what requests wait for (downstream services, locks,
// pools, sleeps, system calls, the scheduler, other processes) and what
// grows (goroutines, the live heap). The profiles are read through
// package analysis's views (Costs, CPUView, WaitView, Owners). A few
// findings come from elsewhere than the profiles: Stuck, from a snapshot
// of a service whose requests stopped finishing, BatchFindings and
// SerialPhaseFindings, from a batch program's run (serial work, a wait
// for a CPU, a throttling budget), and OutOfMemory.
//
// # Findings are data
//
// A finding (runfmt.Finding) holds no sentence: its kind, its figures
// (each a runfmt.Figure with one measure: shares, times and bytes per
// request, sizes, cores, counts), the settings it read, its evidence (the
// functions it names with their role and own figures, peers, processes,
// breakdowns, the run's own notes) and an advice key. Its words are
// written when it is shown, from that data only, by package prose
// (prose.Wording), which package report renders as text, markdown and
// HTML. This package holds no words, so the rules can change without a
// renderer, and a renderer needs none of the rules.
//
// # Adding a finding
//
// A finding is two files: its rule here, its words in package prose, each
// named NAME.go.
//
//  1. Declare its kind in runfmt/findingkind.go, and any figure, setting,
//     role or advice key it needs that runfmt does not have yet (each a
//     closed vocabulary: figure.go, setting.go, role.go, advice.go).
//  2. Write NAME.go here with a rule: a function that reads the context
//     (the input, the CPU view, the wall-time waits, what the rules
//     before it found) and returns the findings with their rank, each
//     holding only data. A threshold is a named constant in that file,
//     compared in the rule: the rule records a figure only when the
//     words should say it.
//  3. Add the rule to rules in findings.go, where it runs in order.
//  4. Write prose/NAME.go with its words: a wording of its kind (title
//     and detail written from a view of the finding, with the words of
//     each advice it gives), added to rules in prose/wording.go.
//  5. Add a case to cases_test.go; `go test ./internal/findings -update`
//     writes its data to testdata, and `go test ./internal/report -update`
//     its words in text, markdown and HTML (testdata/TestFindingWords).
//
// TestEveryKindHasACase fails while a kind has no words or no case, or a
// case's advice has no words.
package findings
