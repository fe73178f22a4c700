package window

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"syscall"
	"testing"
	"time"
)

// The peer's CPU over the window is its threads', to the nanosecond; a
// thread that exited in the window shows in the processes' ticks only.
func TestPeerCPUReading(t *testing.T) {
	before := cpuReading{threads: map[[2]int]float64{{1, 1}: 1.0, {1, 2}: 0.5}, procs: 1.5}
	for _, c := range []struct {
		name  string
		after cpuReading
		want  float64
	}{
		{"threads", cpuReading{threads: map[[2]int]float64{{1, 1}: 1.012, {1, 2}: 0.5031}, procs: 1.51}, 0.0151},
		{"new thread", cpuReading{threads: map[[2]int]float64{{1, 1}: 1.01, {1, 2}: 0.5, {1, 3}: 0.002}, procs: 1.51}, 0.012},
		{"exited thread", cpuReading{threads: map[[2]int]float64{{1, 1}: 1.01}, procs: 1.8}, 0.3},
	} {
		if got := c.after.since(before, 1); fmt.Sprintf("%.6f", got) != fmt.Sprintf("%.6f", c.want) {
			t.Errorf("%s: %.6f s; want %.6f", c.name, got, c.want)
		}
	}
	// This process's own CPU, read around spinning: at least what the
	// kernel's rusage counted inside, and hardly more.
	rusage := func() float64 {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}
	r0 := readCPU([]int{os.Getpid()})
	u0 := rusage()
	u1, x := u0, 0
	for u1-u0 < 0.05 {
		x++
		u1 = rusage()
	}
	d := readCPU([]int{os.Getpid()}).since(r0, 1)
	t.Logf("%.4f s of CPU by rusage (%d turns), %.4f s read", u1-u0, x, d)
	if d < 0.98*(u1-u0) || d > u1-u0+0.01 {
		t.Errorf("read %.4f s of CPU around %.4f s counted by rusage", d, u1-u0)
	}
}

// A peer first seen during the window (its connection opened then) is
// found by its listening address and its CPU read from then on: this
// process, listening, spinning after it was noticed.
func TestPeerNoticedDuringTheWindow(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().(*net.TCPAddr).AddrPort()
	pc := discoverPeers(nil)
	begun := time.Now()
	pc.begin()
	done := make(chan struct{})
	go func() { pc.Notice([]netip.AddrPort{addr}); close(done) }()
	<-done
	pc.Notice([]netip.AddrPort{addr}) // once per address
	// Spinning twice as long as the lookup took: the CPU is read over
	// most of the window.
	spin, x := time.Now(), 0
	for time.Since(spin) < max(50*time.Millisecond, 2*spin.Sub(begun)) {
		x++
	}
	pc.end()
	in, ok := pc.Inputs([]netip.AddrPort{addr})[addr]
	t.Logf("%+v (%d turns of spinning)", in, x)
	if !ok || in.PID != os.Getpid() {
		t.Fatalf("peer %+v; want this process, %d", in, os.Getpid())
	}
	if in.CPUWhy != "" || in.CPU <= 0 || in.CPUShare <= 0 || in.CPUShare > 1 {
		t.Errorf("peer %+v; want its CPU over a part of the window", in)
	}
}
