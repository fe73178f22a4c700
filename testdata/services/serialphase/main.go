// Command serialphase is a batch program with a serial phase: for -serial
// (1.8s) main.chainDigest hashes a chain of blocks on one goroutine, each
// digest feeding the next, then for -parallel (1.2s) GOMAXPROCS goroutines
// hash blocks of their own in main.hashShard. Both phases end by the
// program's clock, so on a machine busy with other work they last as long
// as on an idle one. -serial 0 gives a program that is parallel
// throughout.
//
// It prints the phases as its own clock measured them, from the start of
// main: "serial 0.000 s to 1.800 s, parallel to 3.000 s, GOMAXPROCS 2", and
// exits 0; bad flags exit 2.
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	start := time.Now()
	fs := flag.NewFlagSet("serialphase", flag.ContinueOnError)
	fs.SetOutput(stderr)
	serial := fs.Duration("serial", 1800*time.Millisecond, "how long the serial phase hashes on one goroutine")
	parallel := fs.Duration("parallel", 1200*time.Millisecond, "how long the parallel phase hashes on GOMAXPROCS goroutines")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *serial < 0 || *parallel < 0 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "serialphase: want -serial and -parallel of 0 or more, and no arguments")
		return 2
	}
	from := time.Since(start)
	sum := chainDigest(time.Now().Add(*serial))
	to := time.Since(start)
	n := runtime.GOMAXPROCS(0)
	blocks := parallelHash(n, time.Now().Add(*parallel))
	end := time.Since(start)
	fmt.Fprintf(stdout, "serial %.3f s to %.3f s, parallel to %.3f s, GOMAXPROCS %d (digest %x, %d blocks)\n",
		from.Seconds(), to.Seconds(), end.Seconds(), n, sum[:4], blocks)
	return 0
}

// blockSize is the data hashed at a time.
const blockSize = 4096

// chainDigest hashes blocks one after the other until deadline, each
// digest going into the next block: work that cannot be split.
func chainDigest(deadline time.Time) [sha256.Size]byte {
	var block [blockSize]byte
	var sum [sha256.Size]byte
	for time.Now().Before(deadline) {
		copy(block[:], sum[:])
		sum = sha256.Sum256(block[:])
	}
	return sum
}

// parallelHash hashes on n goroutines until deadline and returns the
// blocks hashed.
func parallelHash(n int, deadline time.Time) int {
	counts := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { counts[i] = hashShard(byte(i), deadline) })
	}
	wg.Wait()
	total := 0
	for _, c := range counts {
		total += c
	}
	return total
}

// hashShard hashes blocks of its own until deadline.
func hashShard(seed byte, deadline time.Time) int {
	var block [blockSize]byte
	block[0] = seed
	n := 0
	for time.Now().Before(deadline) {
		sum := sha256.Sum256(block[:])
		block[1] = sum[0]
		n++
	}
	return n
}
