// Package findmax is the measure stage of a find-max run: on a service
// the session started and warmed, it steps the arrival rate up until a
// step misses the SLO, then bisects, each step a window of its own
// judged like a run's (its load, its CPU, the machine's quality).
package findmax
