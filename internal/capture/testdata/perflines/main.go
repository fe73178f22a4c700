// Command perflines burns CPU in perflabLinesHot, which calls mix (inlined
// by the compiler) on one line, for at most 30 seconds: a process whose
// lines and inlined calls capture's tests read back from perf samples. It
// is built by the tests, not part of perflab.
package main

import "time"

var sink uint64

// modulus is a variable, so that mix divides (a slow instruction whose
// samples land on mix's line) rather than multiplying by a constant.
var modulus uint64 = 1000000007

// mix is small enough for the compiler to inline into its caller.
func mix(x uint64, i int) uint64 { return (x*6364136223846793005+uint64(i))%modulus + x>>3 }

//go:noinline
func perflabLinesHot(n int) uint64 {
	x := sink
	for i := 0; i < n; i++ {
		x = mix(x, i) // the line perf's samples are charged to
	}
	return x
}

func main() {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		sink = perflabLinesHot(1 << 20)
	}
}
