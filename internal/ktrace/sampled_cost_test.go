package ktrace

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A sampled round runs the load with perf's cpu-clock sampler on the
// service's threads and counts the samples taken inside the tracepoints'
// programs: a kernel stack through a tracepoint's call into its programs
// (see isTracepointCall). That share is what the session costs the
// service's own CPU, whatever the load's pace does to the rest: a
// closed-loop load on the same machine also runs the socket programs on
// its own sockets, and a slower load leaves the service fewer requests
// a wake-up, which moves the service's CPU per request by more than the
// programs cost (see docs/performance.md). The sampler's own cost falls
// on these rounds only, which the whole-CPU table leaves out.

// sampledRound is one sampled round's counts.
type sampledRound struct {
	samples    int            // the service's samples
	inPrograms int            // ... inside the programs and their call
	by         map[string]int // ... by the kernel function that called the tracepoint
}

func (r sampledRound) share() float64 { return float64(r.inPrograms) / float64(max(r.samples, 1)) }

// startSampler starts perf record on pids for d (10 kHz of CPU time,
// kernel and user stacks) and returns a function that waits for it and
// counts. Past the load's end the service runs little, and adds few
// samples.
func startSampler(b *testing.B, pids []int, d time.Duration) func() sampledRound {
	b.Helper()
	if _, err := exec.LookPath("perf"); err != nil {
		b.Fatalf("the sampled rounds need perf (linux-perf); KTRACE_SAMPLED=0 leaves them out")
	}
	data := filepath.Join(b.TempDir(), "perf.data")
	ids := make([]string, len(pids))
	for i, pid := range pids {
		ids[i] = strconv.Itoa(pid)
	}
	var stderr bytes.Buffer
	rec := exec.Command("perf", "record", "-q", "-e", "cpu-clock", "-F", "10000", "-g", "-p", strings.Join(ids, ","), "-o", data,
		"--", "sleep", strconv.FormatFloat(d.Seconds(), 'f', 3, 64))
	rec.Stderr = &stderr
	if err := rec.Start(); err != nil {
		b.Fatal(err)
	}
	return func() sampledRound {
		if err := rec.Wait(); err != nil {
			b.Fatalf("perf record: %v: %s", err, stderr.Bytes())
		}
		out, err := exec.Command("perf", "script", "-i", data, "-F", "comm,ip,sym").Output()
		if err != nil {
			b.Fatalf("perf script: %v", err)
		}
		return countInPrograms(out)
	}
}

// isTracepointCall tells whether a kernel frame is a tracepoint's call
// into its programs: the call out of line that a few tracepoints have
// (call_trace_sock_recv_length), the iterator over the tracepoint's
// callbacks, the BPF callback and bpf_trace_run1..12, which runs the
// programs; for a system call's own tracepoint, the slower way in and
// out of every system call that system call tracepoints take (on a
// machine where nothing else traces system calls: no seccomp filter,
// audit or ptrace), the perf callback every return goes through and the
// call of the programs. A tracepoint is called only while something is
// attached.
func isTracepointCall(frame string) bool {
	for _, p := range []string{"call_trace_", "__traceiter_", "__bpf_trace_", "bpf_trace_run",
		"syscall_trace_enter", "syscall_exit_work", "perf_syscall_exit", "perf_call_bpf_exit", "trace_call_bpf"} {
		if strings.HasPrefix(frame, p) {
			return true
		}
	}
	return false
}

// countInPrograms reads perf script's samples (a line naming the command,
// then the stack's frames, leaf first; a blank line between samples).
func countInPrograms(out []byte) sampledRound {
	r := sampledRound{by: map[string]int{}}
	var frames []string
	flush := func() {
		if len(frames) == 0 {
			return
		}
		r.samples++
		last := -1
		for i, f := range frames {
			if isTracepointCall(f) {
				last = i
			}
		}
		if last >= 0 {
			r.inPrograms++
			if last+1 < len(frames) {
				r.by[frames[last+1]]++
			}
		}
		frames = frames[:0]
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	inSample := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
			flush()
			inSample = false
		case !inSample:
			inSample = true // the command's line
		default:
			if f := strings.Fields(line); len(f) >= 2 {
				frames = append(frames, f[1])
			}
		}
	}
	flush()
	return r
}

// printSampled prints, for each sampled arm, the median share of the
// service's samples inside the programs (and the quartiles), and the
// median share by the kernel function that called the tracepoint.
func printSampled(arms []*costArm) {
	if len(arms) == 0 {
		return
	}
	fmt.Println("sampled by perf (cpu-clock at 10 kHz, the service's threads): the programs and their call, in the service's samples")
	for _, a := range arms {
		shares := make([]float64, len(a.sampled))
		callers := map[string]bool{}
		for i, r := range a.sampled {
			shares[i] = r.share()
			for k := range r.by {
				callers[k] = true
			}
		}
		slices.Sort(shares)
		q := func(f float64) float64 { return 100 * shares[int(f*float64(len(shares)-1))] }
		fmt.Printf("%-24s %5.2f%% (quartiles %.2f%% to %.2f%%, %d rounds)\n", a.name, q(0.5), q(0.25), q(0.75), len(shares))
		for _, c := range slices.Sorted(maps.Keys(callers)) {
			v := make([]float64, len(a.sampled))
			for i, r := range a.sampled {
				v[i] = float64(r.by[c]) / float64(max(r.samples, 1))
			}
			slices.Sort(v)
			if m := 100 * v[len(v)/2]; m >= 0.01 {
				fmt.Printf("  %-36s %5.2f%%\n", c, m)
			}
		}
	}
}

func TestCountInPrograms(t *testing.T) {
	out := []byte(`hello 
	ffffffff81fbb669 bpf_sk_storage_get_tracing
	ffffffffc00289ea bpf_prog_76afa81bb349a0a6_on_recv
	ffffffff814e8de1 bpf_trace_run3
	ffffffff81f07f5a call_trace_sock_recv_length
	ffffffff81f087a5 sock_recvmsg
	            b2ee internal/runtime/syscall/linux.Syscall6

hello 
	          22cf34 net/http.(*connReader).Read
	          232e53 net/http.(*conn).serve

hello 
	ffffffff814e890c bpf_trace_run1
	ffffffff81f0fd7b sock_def_readable
	ffffffff82120f21 tcp_rcv_established

hello 
	ffffffff814e8d76 bpf_trace_run3
	ffffffff81f07f5a call_trace_sock_recv_length

hello 
	ffffffffc0031234 bpf_prog_0123456789abcdef_on_accept4
	ffffffff814e7000 trace_call_bpf
	ffffffff814f1000 perf_syscall_exit
	ffffffff8131f000 syscall_exit_work
	ffffffff822f6f71 do_syscall_64
`)
	r := countInPrograms(out)
	// The last sample's stack ends inside the tracepoint's call (perf
	// keeps at most its stack limit): it is counted, under no caller.
	if r.samples != 5 || r.inPrograms != 4 {
		t.Fatalf("samples %d, in programs %d; want 5 and 4", r.samples, r.inPrograms)
	}
	if r.by["sock_recvmsg"] != 1 || r.by["sock_def_readable"] != 1 || r.by["do_syscall_64"] != 1 || r.by[""] != 0 {
		t.Errorf("by tracepoint: %v", r.by)
	}
}
