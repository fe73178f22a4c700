package capture_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"perflab/internal/capture"
)

// Example shows a profiling window of a Go service under load: check the
// endpoint, snapshot allocations, take a CPU profile, snapshot again, keep
// the difference, and read the GC trace of the same window.
func Example() {
	ctx := context.Background()
	base := "http://127.0.0.1:6060"
	var c capture.Client
	if err := c.Probe(ctx, base); err != nil {
		fmt.Println(err) // fall back to capture.PerfRecord for a non-Go service
		return
	}
	var gc capture.GCTrace // fed every stderr line of the service: gc.Add(line, time.Now())
	from := time.Now()
	before, _, err := c.Fetch(ctx, base, "allocs", "")
	if err != nil {
		fmt.Println(err)
		return
	}
	cpu, raw, err := c.CPU(ctx, base, 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	after, _, err := c.Fetch(ctx, base, "allocs", "")
	if err != nil {
		fmt.Println(err)
		return
	}
	allocs, err := capture.Delta(before, after)
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = os.WriteFile("cpu.pb.gz", raw, 0o644) // as served; or cpu.Write(f)
	f, _ := os.Create("allocs.pb.gz")
	_ = allocs.Write(f)
	f.Close()
	fmt.Println(len(cpu.Sample), gc.Summary(from, time.Now(), 0).Count)
}
