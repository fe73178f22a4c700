// Package decide is the collect→decide stage of a run: from what the run
// measured (Input: its load result, profiles, the service's and the
// machine's samples, the GC trace, the kernel's timing, the peers) it
// computes the run record's figures once: the summary per request, the
// machine's quality, the GC and the Go runtime's settings, the time
// split of a request, the ledger, the findings with their source lines,
// the endpoints, whose code is whose, and the answer. Package lab calls
// it between the measured window and saving the run; the report only
// formats what it filled in.
package decide
