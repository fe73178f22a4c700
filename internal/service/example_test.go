package service_test

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"perflab/internal/service"
)

// Example shows the whole API: launch under a budget, wait until ready,
// sample during the load, summarise the steady window, stop.
func Example() {
	ctx := context.Background()
	cpus, _ := service.ParseCPUs("0.5")
	mem, _ := service.ParseMemory("256MiB")
	p, err := service.Launch(ctx, service.LaunchConfig{
		Command: []string{"./server", "-addr", "127.0.0.1:8080"},
		Budget:  service.Budget{CPUs: cpus, MemoryBytes: mem},
		LogPath: "target.log",
		Name:    "server",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Stop(5 * time.Second)
	for _, w := range p.Warnings() {
		fmt.Println("warning:", w)
	}
	if err := service.WaitReady(ctx, service.ReadyProbe{URL: "http://127.0.0.1:8080/"}, 30*time.Second, p); err != nil {
		fmt.Println(err)
		return
	}
	s := service.NewSampler(p, 0)
	sctx, stop := context.WithCancel(ctx)
	go s.Run(sctx)
	from := time.Now()
	time.Sleep(10 * time.Second) // the measurement window: the load runs here
	to := time.Now()
	stop()
	sum := service.Window(s.Samples(), from, to, p.CPULimitCores(), runtime.NumCPU())
	fmt.Printf("%.2f cores, CPU-bound: %v\n", sum.CPUCoresMean, sum.CPUBound)
}
