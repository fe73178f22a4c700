package ktrace

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
	"golang.org/x/sys/unix"

	"perflab/internal/labtest"
)

// BenchmarkSyscallExitCost is what the two ways of seeing accept() return
// cost every other system call of the machine: one thread on the last CPU
// makes 2,000,000 getppid calls with nothing attached, with an empty
// program at the raw sys_exit tracepoint (on_sys_exit's way), and with
// one at syscalls:sys_exit_accept4 (on_accept4's way), KTRACE_ROUNDS
// times (default 9) in turn. It prints each way's median CPU per call.
func BenchmarkSyscallExitCost(b *testing.B) {
	labtest.RequireRoot(b, "loading kernel programs")
	rounds := envInt(b, "KTRACE_ROUNDS", 9)
	onLastCPU(b)
	empty := asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()}
	ways := []struct {
		name   string
		attach func() (link.Link, *ebpf.Program, error)
	}{
		{"nothing attached", func() (link.Link, *ebpf.Program, error) { return nil, nil, nil }},
		{"a program at sys_exit", func() (link.Link, *ebpf.Program, error) {
			p, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.Tracing, AttachType: ebpf.AttachTraceRawTp, AttachTo: "sys_exit", License: "GPL", Instructions: empty})
			if err != nil {
				return nil, nil, err
			}
			l, err := link.AttachTracing(link.TracingOptions{Program: p})
			return l, p, err
		}},
		{"a program at sys_exit_accept4", func() (link.Link, *ebpf.Program, error) {
			p, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.TracePoint, License: "GPL", Instructions: empty})
			if err != nil {
				return nil, nil, err
			}
			l, err := attachSyscallExit(p, "accept4")
			return l, p, err
		}},
	}
	perCall := make([][]float64, len(ways))
	for b.Loop() {
		for range rounds {
			for i, w := range ways {
				l, p, err := w.attach()
				if err != nil {
					b.Fatalf("%s: %v", w.name, err)
				}
				perCall[i] = append(perCall[i], getppidCPU(b, 2000000))
				if l != nil {
					l.Close()
				}
				if p != nil {
					p.Close()
				}
			}
		}
	}
	for i, w := range ways {
		slices.Sort(perCall[i])
		fmt.Printf("%-30s %6.1f ns of CPU a system call (median of %d rounds)\n", w.name, perCall[i][len(perCall[i])/2], len(perCall[i]))
	}
}

// getppidCPU is the thread's CPU per getppid call over n calls.
func getppidCPU(b *testing.B, n int) float64 {
	var ru0, ru1 unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru0); err != nil {
		b.Fatal(err)
	}
	for range n {
		unix.Getppid()
	}
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru1); err != nil {
		b.Fatal(err)
	}
	return float64(ru1.Utime.Nano()+ru1.Stime.Nano()-ru0.Utime.Nano()-ru0.Stime.Nano()) / float64(n)
}
