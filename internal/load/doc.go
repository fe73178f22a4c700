// Package load drives HTTP load at a service and measures it.
//
// Two models are offered, as in wrk/hey and wrk2/vegeta/k6:
//
//   - Closed: C workers, each with its own keep-alive connection, send the next
//     request when the previous one completes (optionally capped at Q requests/s
//     per worker). Latency is measured from the moment a request is sent.
//   - Open: requests arrive on a schedule (a constant rate, or linear stages
//     like k6's ramping-arrival-rate) whatever the service does, and each
//     latency is measured from its intended start time, so a stalled service
//     cannot hide its queueing (coordinated omission). Concurrency is bounded by
//     MaxInflight; arrivals that find every slot busy wait and are counted, and
//     arrivals that wait longer than the timeout are dropped and counted.
//
// HTTP/1.1 (plain and TLS) goes through a lean client of this package; HTTP/2
// goes through net/http. Every latency lands in an HDR histogram: no per-request
// state is kept, so memory stays flat however long the load runs, and results of
// several shards merge losslessly (see Merge).
package load
