//go:build race

package labtest

// RaceEnabled says the race detector is on: it distorts CPU shares and
// slows some work tenfold.
const RaceEnabled = true
