// Command perfburn burns CPU in perflabBurnHot for at most 30 seconds, a
// busy process for capture's perf tests to sample. It is built by the
// tests, not part of perflab.
package main

import "time"

var sink uint64

//go:noinline
func perflabBurnHot(n int) {
	x := sink
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}

func main() {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		perflabBurnHot(1 << 20)
	}
}
