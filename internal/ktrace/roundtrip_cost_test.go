package ktrace

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"perflab/internal/labtest"
)

// BenchmarkRoundTripCost is what a session costs one loopback round trip
// of a connection it times at both ends: one thread on the last CPU
// writes a byte on a connection, reads it at the other end, answers and
// reads the answer (a send, an arrival and a read on each side: an
// outbound call and an inbound request), KTRACE_ROUNDS times (default
// 25) for 20000 round trips each without a session, with one, and
// without again. A fresh connection is opened for each, so that the
// session sees it open. It prints the median of each round's CPU per
// round trip with the session less the mean of the two without (the
// quartiles show the noise), and per socket program its cost per run as
// the kernel counts it. Unlike BenchmarkSessionCost no load generator's
// batching moves the CPU per request: it compares two builds of the
// programs. bench/ktrace-roundtrip.sh runs it.
func BenchmarkRoundTripCost(b *testing.B) {
	labtest.RequireRoot(b, "loading kernel programs")
	rounds := envInt(b, "KTRACE_ROUNDS", 25)
	last := onLastCPU(b)
	rt := newRoundTrips(b)
	defer unix.Close(rt.ln)
	var diffs []float64
	programs := map[string]Stat{}
	for b.Loop() {
		for range rounds {
			before := rt.cpu(b, 20000)
			s, err := Start(Config{PIDs: []int{os.Getpid()}, Ports: []uint16{rt.port}})
			if err != nil {
				b.Fatal(err)
			}
			on := rt.cpu(b, 20000)
			tot, err := s.Read()
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Close(); err != nil {
				b.Fatal(err)
			}
			after := rt.cpu(b, 20000)
			diffs = append(diffs, float64(on)-float64(before+after)/2)
			for _, name := range []string{"on_send", "on_ready", "on_recv"} {
				programs[name] = programs[name].add(tot.Programs[name])
			}
		}
	}
	slices.Sort(diffs)
	q := func(f float64) float64 { return diffs[int(f*float64(len(diffs)-1))] }
	fmt.Printf("%d rounds of 20000 loopback round trips on CPU %d: a session adds %.0f ns of CPU a round trip (quartiles %.0f to %.0f)\n",
		len(diffs), last, q(0.5), q(0.25), q(0.75))
	for _, name := range []string{"on_send", "on_ready", "on_recv"} {
		fmt.Printf("  %-9s %4d ns per run as the kernel counts it (%d runs counted)\n", name, programs[name].Mean().Nanoseconds(), programs[name].Count)
	}
	b.ReportMetric(q(0.5), "ns-added/roundtrip")
}

// onLastCPU locks the benchmark's goroutine to its thread and that thread
// to the last CPU it may run on, until the benchmark ends; it returns
// that CPU.
func onLastCPU(b *testing.B) int {
	runtime.LockOSThread()
	b.Cleanup(runtime.UnlockOSThread)
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		b.Fatal(err)
	}
	last := -1
	for cpu := range 1024 {
		if set.IsSet(cpu) {
			last = cpu
		}
	}
	var one unix.CPUSet
	one.Set(last)
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = unix.SchedSetaffinity(0, &set) })
	return last
}

// roundTrips is a listening socket on the loopback whose connections the
// benchmark opens to itself.
type roundTrips struct {
	ln   int
	addr unix.Sockaddr
	port uint16
}

func newRoundTrips(b *testing.B) *roundTrips {
	ln, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		b.Fatal(err)
	}
	if err := unix.Bind(ln, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		b.Fatal(err)
	}
	if err := unix.Listen(ln, 4); err != nil {
		b.Fatal(err)
	}
	addr, err := unix.Getsockname(ln)
	if err != nil {
		b.Fatal(err)
	}
	return &roundTrips{ln: ln, addr: addr, port: uint16(addr.(*unix.SockaddrInet4).Port)}
}

// cpu opens a connection and returns the thread's CPU per round trip
// over n of them.
func (rt *roundTrips) cpu(b *testing.B, n int) time.Duration {
	client, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(client)
	if err := unix.Connect(client, rt.addr); err != nil {
		b.Fatal(err)
	}
	server, _, err := unix.Accept(rt.ln)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(server)
	for _, fd := range []int{client, server} {
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); err != nil {
			b.Fatal(err)
		}
	}
	q, buf := []byte("q"), make([]byte, 16)
	var ru0, ru1 unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru0); err != nil {
		b.Fatal(err)
	}
	for range n {
		for _, fds := range [2][2]int{{client, server}, {server, client}} {
			if _, err := unix.Write(fds[0], q); err != nil {
				b.Fatal(err)
			}
			if _, err := unix.Read(fds[1], buf); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru1); err != nil {
		b.Fatal(err)
	}
	used := ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano()
	return time.Duration(used) / time.Duration(n)
}
