// Package ktrace times a set of processes from the kernel: where their
// threads' time goes (on a CPU, waiting for one, asleep and why) and how
// their TCP connections spend theirs (requests waiting to be read or
// accepted, responses held back by Nagle's algorithm, peers' time to
// answer). It sees every runtime alike: a suspended coroutine, a promise,
// a pool thread and a future all show at the scheduler and the socket.
//
//	s, err := ktrace.Start(ktrace.Config{PIDs: []int{pid}, Ports: []uint16{8080}})
//	if errors.Is(err, ktrace.ErrUnavailable) { ... } // the error says why
//	defer s.Close()
//	before, _ := s.Read()
//	... // the load
//	after, _ := s.Read()
//	window := after.Sub(before) // Totals.Unmeasured: what is not, and why
//
// # Why eBPF, and which hooks
//
// Small programs run in the kernel at scheduler and socket tracepoints
// (github.com/cilium/ebpf loads them from this process): no external tool,
// no text to parse, and every figure aggregated in the kernel, in maps of
// fixed size, so the cost does not grow with the event rate and nothing is
// copied out per event. Each program's own CPU time is counted by the
// kernel (its run-time statistics, switched on for a tenth of the
// session: counting adds a clock read to every run) and returned as
// Totals.ProgramCPU, which Totals.ProgramEstimate scales to the whole
// window, so a caller can state what measuring cost.
// The programs run on every switch and socket operation of the machine;
// all but the measured processes' leave after one lookup (a bitmap of
// processes, or the socket's own storage). bench/ktrace-cost.sh measures
// the cost.
//
// The programs attach to BTF tracepoints only (tp_btf: typed arguments,
// CO-RE field access). Function hooks (fentry/fexit, kprobes) are not used:
// a tracepoint is a stable interface, and kernels that forbid function
// tracing (a security policy refuses fentry with EPERM; kprobes are often
// not built) still allow it. Needs BTF at /sys/kernel/btf/vmlinux, root
// (or CAP_BPF and CAP_PERFMON), x86-64, and Linux ≥ 5.18 for the
// scheduler; the socket tracepoints (sock_send_length, sock_recv_length,
// sk_data_ready) came in Linux 6.3 to 6.5, and on an older kernel the
// socket measures say so in Totals.Unmeasured.
//
// # What is measured, from which event to which
//
// Scheduler (sched_switch; sched_process_fork follows new processes). A
// thread's time between two of its switch-outs is split at the second:
//   - on a CPU and runnable: as the kernel itself counts them
//     (se.sum_exec_runtime, sched_info.run_delay), read at each
//     switch-out of a measured thread; runnable is from becoming runnable
//     (a wake-up, or a preemption) to the switch-in;
//   - off a CPU: from a switch-out asleep to the wake-up: the time
//     between the two switch-outs less the kernel's on-CPU and runnable
//     time, so that a wake-up the tracepoints miss loses nothing;
//     classified by the sleep's state and the system call the thread
//     slept in, read from its saved registers at switch-out, as a
//     runfmt.ThreadState;
//   - with Config.Stacks, the user stack at each switch-out asleep.
//
// TCP, for connections established on the service's listening ports
// (inbound: from the handshake's end, inet_sock_set_state) and opened by
// its processes (outbound: connect(), inet_sock_set_state SYN_SENT). The
// listening ports are those of Config.Ports, those the processes listen
// on when the session starts or a process is added, and each listen()
// after. Connections open then are taken up too (connection pools, gRPC
// channels and keep-alive clients opened before the session): an iterator
// over the processes' open files (iter/task_file) notes their sockets, and
// one over the machine's TCP sockets (iter/tcp, whose socket pointers the
// verifier trusts with socket storage) takes them up.
//   - a request: the first bytes arriving (sk_data_ready) on an inbound
//     connection that is new or on which the service has sent since
//     (sock_send_length); waiting to be read: from that arrival to the
//     service's first read returning data (sock_recv_length);
//   - accept backlog, with Config.AcceptBacklog: from the handshake's end
//     (SYN_RECV to ESTABLISHED) to accept() returning it (the accept
//     calls' own tracepoints, syscalls:sys_exit_accept4 and
//     sys_exit_accept, or sys_exit where those are missing; its file
//     descriptor resolved to the socket through the process's file
//     table); a request that arrived before then waits to be read from
//     accept() on;
//   - an answer: the first bytes arriving on an outbound connection after
//     the service sent on it; the peer's time: from the service's last
//     send (its transmission) to that arrival, and the peer's turn: from
//     the first send since the bytes before arrived; waiting to be read:
//     from bytes arriving (an answer, or a burst with no send since) to
//     the service's first read returning data (the service's own delay);
//     sends made while an answer is awaited are counted
//     (Outbound.Overlaps: calls overlapping on the connection, see
//     Limits);
//   - send stalls: from the return of a send that left bytes untransmitted
//     (the socket's write_seq beyond snd_nxt) to their transmission: the
//     socket's last transmit time (tcp_wstamp_ns), read at the
//     connection's next event once snd_nxt has passed them (the next
//     request's arrival, the next send, read or close); split by the
//     socket's Nagle setting (tcp_sock nonagle) at the send.
//
// All times are CLOCK_MONOTONIC: the programs' clock (bpf_ktime_get_ns),
// or, at bytes arriving and at a send that left none untransmitted, the
// time TCP took for the socket as it began processing the segment or
// sending (tcp_clock_cache), which saves a clock read at each. Only
// intervals are returned, no timestamps. An interval is counted when it
// ends.
//
// # Limits
//
// TCP over IPv4 and IPv6 (IPv4-mapped peers are unmapped). Connections
// open at the start in another network namespace than perflab's are not
// taken up (the TCP iterator walks its own). Not seen: UDP
// and Unix sockets, kernel TLS, and reads by splice or sendfile. One
// request per connection at a time: pipelined HTTP/1.1 requests, and
// HTTP/2 or gRPC streams multiplexed on a connection, count as one request
// (or answer) per burst of bytes after a send, timed from its first bytes;
// TLS records and HTTP/2 control frames (pings, window updates) sent or
// arriving between requests start or end exchanges of their own. On an
// outbound connection the overlap shows (Outbound.Overlaps), and what
// stays measurable is the connection's, not the calls': the time it
// waited on the peer (Outbound.Turns, a floor of the calls' summed time)
// and the time its arrived bytes waited to be read (Outbound.Unread). One
// HTTP/2 call at a time with answers larger than its flow-control window
// shows no overlap, yet the client's window updates between an answer's
// bursts start answers of their own: the answers' count is then too high,
// their time whole. MPTCP connections (both ends MPTCP) are not seen; an
// MPTCP listener's connections from TCP clients are. Accepts through io_uring are not
// timed. A stall of a stream that keeps sending is timed to its last
// transmission. A thread's time is counted at its switch-outs: one that
// never leaves its CPU shows none until it does.
//
// # Building the kernel programs
//
// bpf/ktrace.bpf.c is compiled by bpf2go into ktrace_x86_bpfel.o and
// embedded; both are committed, so building perflab needs no C compiler.
// See gen.go for the tools and the command.
package ktrace
