// Command gcload allocates heavily for about a second while keeping a live
// heap, so that GODEBUG=gctrace=1 prints many GC lines; capture tests read
// them. It is built by the tests, not part of perflab.
package main

import (
	"fmt"
	"os"
	"time"
)

type node struct {
	next *node
	buf  []byte
}

var live []*node

func main() {
	deadline := time.Now().Add(time.Second)
	for i := 0; i < 5_000_000 && time.Now().Before(deadline); i++ {
		n := &node{buf: make([]byte, 256)}
		if i%4 == 0 {
			live = append(live, n)
		}
		if len(live) > 100_000 {
			live = live[:0]
		}
	}
	fmt.Fprintln(os.Stdout, "done", len(live))
}
