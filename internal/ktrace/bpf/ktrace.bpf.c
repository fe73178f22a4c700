// Kernel side of perflab's ktrace package: scheduler and TCP timing of a set
// of processes, aggregated in bounded maps that the Go side reads on demand.
// Every interval is counted when it ends; its start is kept in task or socket
// local storage (freed by the kernel with the task or socket). A failed
// insert into a map is counted in drops, never lost silently.
//
// The programs run on every scheduler switch and socket operation of the
// machine, so the common case (not a measured process or connection) leaves
// at once: processes and ports are bitmaps (an array lookup the verifier
// inlines), connections carry their state and the index of their totals.
//
// Built with bpf2go (see ../gen.go) against vmlinux.h, with CO-RE
// relocations so that the object loads on kernels other than the one it
// was built on.

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>

// The kernel lets only GPL-compatible programs use the tracing helpers.
char LICENSE[] SEC("license") = "Dual MIT/GPL";

#define TASK_RUNNING 0x0
#define TASK_INTERRUPTIBLE 0x1
#define TASK_UNINTERRUPTIBLE 0x2
#define TASK_DEAD 0x80
#define TCP_ESTABLISHED 1
#define TCP_SYN_SENT 2
#define TCP_SYN_RECV 3
#define TCP_CLOSE 7
#define TCP_CLOSE_WAIT 8
#define TCP_LISTEN 10
#define NR_ACCEPT 43 // x86-64
#define NR_ACCEPT4 288
#define IPPROTO_TCP 6
#define IPPROTO_MPTCP 262
#define SOCK_STREAM 1
#define AF_INET 2
#define AF_INET6 10
#define RCV_SHUTDOWN 1
#define MSG_PEEK 2
#define TCP_NAGLE_OFF 1

// Sleep classes at switch-out; the Go side names them (see classify).
#define CLASS_INTERRUPTIBLE 1
#define CLASS_UNINTERRUPTIBLE 2
#define CLASS_OTHER 3

#define MAX_FLOWS 4096
#define MAX_PROCS 4096
#define MAX_WAITS 16384

// Set by the loader before the programs are verified.
const volatile bool want_stacks = false;  // user stacks of off-CPU intervals
const volatile bool want_backlog = false; // accept backlog (on_sys_exit attached)

// Indexes of drops: one counter per map that can refuse an insert.
enum {
	DROP_TARGETS,
	DROP_THREADS,
	DROP_CONNS,
	DROP_PROCS,
	DROP_OFFCPU,
	DROP_FLOWS,
	DROP_STACKS,
	DROP_PENDING,
	NDROPS,
};

// A thread at its last switch-out (task local storage): the kernel's own
// counters of its time on a CPU and waiting for one, and why it left. It
// keeps the indexes of its process's totals and of its last sleep's, so
// that a switch-out costs array lookups, not hash lookups.
struct thread {
	__u64 out_ts;  // switched out at
	__u64 exec;    // se.sum_exec_runtime then
	__u64 delay;   // sched_info.run_delay then
	__s32 nr;      // system call it last slept in (-1: none)
	__s32 stackid; // user stack at that switch-out (-1: none)
	__u32 sleep;   // that sleep's class
	__u32 class;   // sleep class; 0: preempted, still runnable
	__u32 pslot;   // its process's index in procs, plus one (0: none yet)
	__u32 oslot;   // index in offcpu of (nr, stackid, sleep), plus one
};

// Per process (tgid) scheduler totals. Only sched_switch (interrupts off)
// writes procs and offcpu: plain adds to this CPU's value are safe. A
// connection total that one program alone writes is added to plainly too
// (a program does not run nested in itself on a CPU: the kernel skips
// such a run, counted in Dropped.Recursion); one that several write, from
// system calls and from softirqs that may interrupt them, atomically.
struct proc {
	__u64 oncpu_ns, oncpu_n;
	__u64 runq_ns, runq_n;
};

// Off-CPU intervals by process, system call, sleep class and stack.
struct offkey {
	__u32 tgid;
	__s32 nr;
	__s32 stackid;
	__u32 class;
};

struct waitstat {
	__u64 ns, n;
};

#define DIR_INBOUND 1
#define DIR_OUTBOUND 2

// What a connection's totals are kept under: inbound by the local
// (listening) port, outbound by the peer's address and port.
struct flowkey {
	__u8 dir;
	__u8 pad;
	__u16 family;
	__u16 port; // host byte order
	__u16 pad2;
	__u8 addr[16];
};

struct flow {
	__u64 conns;                   // connections seen
	__u64 conns_nagle;             // ... whose first send had Nagle on
	__u64 conns_nodelay;           // ... whose first send had TCP_NODELAY
	__u64 exchanges;               // inbound: requests; outbound: answers
	__u64 peer_ns;                 // outbound: last send -> answer's first bytes
	__u64 turn_ns;                 // outbound: first unanswered send -> the same
	__u64 overlaps;                // outbound: sends while an answer was awaited
	__u64 bursts;                  // outbound: arrivals with no send since the last
	__u64 unread_ns, unread_n;     // first bytes arrived -> read by the service
	__u64 backlog_ns, backlog_n;   // inbound: established -> accept() returned
	__u64 stall_ns, stall_n;       // sends held untransmitted, Nagle on
	__u64 stall_nd_ns, stall_nd_n; // the same with TCP_NODELAY
};

// A connection's open intervals (socket local storage).
struct conn {
	__u64 unread_ts; // first bytes of a request/answer arrived, not yet read
	__u64 send_ts;   // outbound: last send, no answer yet
	__u64 first_ts;  // outbound: first send since the last answer (its turn)
	__u64 held_ts;   // a send left bytes untransmitted since
	__u32 held_seq;  // ... up to this sequence number
	__u32 slot;      // index of its totals in flows, plus one (0: none)
	__u8 dir;
	__u8 idle;       // inbound: the next bytes start a request
	__u8 sent;       // the service has sent on it
	__u8 held_nagle;
	__u8 pending;    // inbound: in pending until its first read
	__u8 pad[3];
};

// Connections established on a listening port, until their first read, by
// socket address: accept() gives a file descriptor, resolved to the socket
// by reading the process's file table, which yields an address.
struct pending {
	__u64 est_ts;    // handshake's end
	__u64 accept_ts; // accept() returned (0: not yet)
	__u32 slot;      // the connection's flow slot plus one
	__u32 pad;
};

// Measured processes: bit tgid. The loader sizes it to the kernel's pid_max.
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u64);
} targets SEC(".maps");

// The service's listening ports: bit port.
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct thread);
} threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct conn);
} conns SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct pending);
} pending SEC(".maps");

// Totals kept by index (per-CPU arrays, whose lookups the verifier
// inlines), each key's index given by a hash map and allocated from
// nslots at the key's first use: processes (procslots: tgid), off-CPU
// keys (offslots) and connections (flowslots: struct flowkey).
enum {
	SLOTS_FLOWS,
	SLOTS_PROCS,
	SLOTS_OFFCPU,
	NSLOTS,
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NSLOTS);
	__type(key, __u32);
	__type(value, __u32);
} nslots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_PROCS);
	__type(key, __u32);
	__type(value, __u32);
} procslots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MAX_PROCS);
	__type(key, __u32);
	__type(value, struct proc);
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_WAITS);
	__type(key, struct offkey);
	__type(value, __u32);
} offslots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MAX_WAITS);
	__type(key, __u32);
	__type(value, struct waitstat);
} offcpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_FLOWS);
	__type(key, struct flowkey);
	__type(value, __u32);
} flowslots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MAX_FLOWS);
	__type(key, __u32);
	__type(value, struct flow);
} flows SEC(".maps");


// The loader sets max_entries to 1 when stacks are off.
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__uint(value_size, 127 * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NDROPS);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

static __always_inline void drop(__u32 which)
{
	__u64 *n = bpf_map_lookup_elem(&drops, &which);
	if (n)
		__sync_fetch_and_add(n, 1);
}

static __always_inline bool has_bit(void *bitmap, __u32 n)
{
	__u32 i = n >> 6;
	__u64 *w = bpf_map_lookup_elem(bitmap, &i);
	return w && ((*w >> (n & 63)) & 1);
}

static __always_inline bool set_bit(void *bitmap, __u32 n)
{
	__u32 i = n >> 6;
	__u64 *w = bpf_map_lookup_elem(bitmap, &i);
	if (!w)
		return false;
	__sync_fetch_and_or(w, 1ULL << (n & 63));
	return true;
}

static __always_inline bool is_target(__u32 tgid)
{
	return has_bit(&targets, tgid);
}

static __always_inline bool current_is_target(void)
{
	return is_target(bpf_get_current_pid_tgid() >> 32);
}

// slot_of returns the index plus one of key's totals, allocating one
// from nslots[which] at the key's first use (0: full, a drop counted
// under dropped).
static __always_inline __u32 slot_of(void *slots, const void *key, __u32 which, __u32 max, __u32 dropped)
{
	__u32 *s = bpf_map_lookup_elem(slots, key);
	if (s)
		return *s + 1;
	__u32 *next = bpf_map_lookup_elem(&nslots, &which);
	if (!next)
		return 0;
	__u32 slot = __sync_fetch_and_add(next, 1);
	if (slot < max && !bpf_map_update_elem(slots, key, &slot, BPF_NOEXIST))
		return slot + 1;
	// Another CPU added the key first (this slot stays unused), or full.
	s = bpf_map_lookup_elem(slots, key);
	if (s)
		return *s + 1;
	drop(dropped);
	return 0;
}

// at returns the totals at index slot-1 of an array (NULL for slot 0).
static __always_inline void *at(void *array, __u32 slot)
{
	if (!slot)
		return NULL;
	__u32 i = slot - 1;
	return bpf_map_lookup_elem(array, &i);
}

// ---- Scheduler ----

static __always_inline void add_offcpu(struct thread *th, __u32 tgid, __u64 ns)
{
	if (!th->oslot) {
		struct offkey k = {
			.tgid = tgid,
			.nr = th->nr,
			.stackid = th->stackid,
			.class = th->sleep,
		};
		th->oslot = slot_of(&offslots, &k, SLOTS_OFFCPU, MAX_WAITS, DROP_OFFCPU);
	}
	struct waitstat *s = at(&offcpu, th->oslot);
	if (s) {
		s->ns += ns;
		s->n++;
	}
}

// account splits the time between a thread's last switch-out and this one
// into on a CPU and runnable, as the kernel counted them (every switch
// updates its counters), and off a CPU: the rest, when it left asleep.
// Deriving the split from the kernel's counters keeps the figures whole
// even when a wake-up or switch event is not seen.
static __always_inline void account(struct thread *th, __u32 tgid, __u64 now, __u64 exec, __u64 delay)
{
	__u64 on = exec - th->exec, q = delay - th->delay, wall = now - th->out_ts;
	if (!th->pslot)
		th->pslot = slot_of(&procslots, &tgid, SLOTS_PROCS, MAX_PROCS, DROP_PROCS);
	struct proc *p = at(&procs, th->pslot);
	if (p) {
		p->oncpu_ns += on;
		p->oncpu_n++;
		if (q) {
			p->runq_ns += q;
			p->runq_n++;
		}
	}
	if (th->class)
		add_offcpu(th, tgid, wall > on + q ? wall - on - q : 0);
}

static __always_inline void switch_out(void *ctx, struct task_struct *prev, bool preempt,
				       unsigned int state, __u64 now)
{
	struct thread *th = bpf_task_storage_get(&threads, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!th) {
		drop(DROP_THREADS);
		return;
	}
	__u64 exec = prev->se.sum_exec_runtime;
	__u64 delay = prev->sched_info.run_delay;
	if (th->out_ts) // else its first switch-out seen: a start
		account(th, prev->tgid, now, exec, delay);
	if (state & TASK_DEAD) {
		bpf_task_storage_delete(&threads, prev);
		return;
	}
	th->out_ts = now;
	th->exec = exec;
	th->delay = delay;
	if (preempt || state == TASK_RUNNING) {
		th->class = 0;
		return;
	}
	__u32 class;
	if (state & TASK_UNINTERRUPTIBLE)
		class = CLASS_UNINTERRUPTIBLE;
	else if (state & TASK_INTERRUPTIBLE)
		class = CLASS_INTERRUPTIBLE;
	else
		class = CLASS_OTHER;
	th->class = class;
	// The system call the thread sleeps in: its saved user registers
	// hold the call's number (orig_ax), read here rather than by a
	// program on every system call's entry.
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(prev);
	__s32 nr = regs ? (__s32)regs->orig_ax : -1, stackid = -1;
	if (want_stacks) {
		long id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
		if (id >= 0)
			stackid = id;
		else
			drop(DROP_STACKS);
	}
	// A thread mostly sleeps where it slept last: the index of that
	// sleep's totals is kept until the sleep differs.
	if (nr != th->nr || stackid != th->stackid || class != th->sleep) {
		th->nr = nr;
		th->stackid = stackid;
		th->sleep = class;
		th->oslot = 0;
	}
}

// Only switch-outs are needed: the kernel's counters say how the time
// since the last one split.
SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	if (is_target(prev->tgid))
		switch_out(ctx, prev, preempt, prev_state, bpf_ktime_get_ns());
	return 0;
}

// A process forked by a measured one is measured too.
SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	if (ptgid != ctgid && is_target(ptgid) && !set_bit(&targets, ctgid))
		drop(DROP_TARGETS);
	return 0;
}

// ---- TCP ----

// stamp is when TCP last took the time for the socket: as it began
// processing the segment being delivered (sk_data_ready), or sending the
// bytes just written (a send that left none untransmitted). TCP keeps it
// (tcp_clock_cache, CLOCK_MONOTONIC in ns) because reading the clock is
// slow on some machines (a hypervisor's clock: tens of ns), and so the
// programs use it where it holds the moment they time.
static __always_inline __u64 stamp(struct tcp_sock *tp)
{
	return tp->tcp_clock_cache;
}

// since is now - ts, 0 if ts is later: the socket's stamp and the
// programs' clock are read apart, and may cross by a few ns.
static __always_inline __u64 since(__u64 now, __u64 ts)
{
	return now > ts ? now - ts : 0;
}

static __always_inline struct flow *flow_at(__u32 slot)
{
	return at(&flows, slot);
}

// add counts an interval in totals several programs write.
static __always_inline void add(__u64 *ns, __u64 *n, __u64 d)
{
	__sync_fetch_and_add(ns, d);
	__sync_fetch_and_add(n, 1);
}

// add_own counts an interval in totals only the running program writes.
static __always_inline void add_own(__u64 *ns, __u64 *n, __u64 d)
{
	*ns += d;
	*n += 1;
}

static __always_inline struct conn *new_conn(struct sock *sk, __u8 dir)
{
	struct conn *c = bpf_sk_storage_get(&conns, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!c) {
		drop(DROP_CONNS);
		return NULL;
	}
	__builtin_memset(c, 0, sizeof(*c));
	struct flowkey k = {.dir = dir};
	c->dir = dir;
	if (dir == DIR_INBOUND) {
		k.port = sk->__sk_common.skc_num;
		c->idle = 1;
	} else {
		__u16 family = sk->__sk_common.skc_family;
		k.family = family;
		k.port = bpf_ntohs(sk->__sk_common.skc_dport);
		if (family == AF_INET6)
			bpf_core_read(k.addr, 16, &sk->__sk_common.skc_v6_daddr);
		else
			bpf_core_read(k.addr, 4, &sk->__sk_common.skc_daddr);
	}
	c->slot = slot_of(&flowslots, &k, SLOTS_FLOWS, MAX_FLOWS, DROP_FLOWS);
	struct flow *f = flow_at(c->slot);
	if (f)
		__sync_fetch_and_add(&f->conns, 1);
	return c;
}

// conn_of returns the connection's state: only connections of measured
// processes have one, so any other socket's event ends here. Most sockets
// of the machine carry no local storage at all: they leave on one load,
// without the helper's call.
static __always_inline struct conn *conn_of(struct sock *sk)
{
	if (!sk->sk_bpf_storage)
		return NULL;
	return bpf_sk_storage_get(&conns, sk, 0, 0);
}

// The measured processes' sockets when the session starts (or a process is
// added): ports_pass learns the listening ports and notes every TCP socket
// of the measured processes' files in owned; conns_pass, over the
// machine's TCP sockets, takes up those noted that are connected (or
// connecting), inbound when on a listening port. Two passes because a socket reached through a file is a
// pointer the verifier does not trust (a walk from the file), which
// socket storage refuses; the TCP iterator's socket is trusted.
static __always_inline struct sock *stream_sock_of(struct bpf_iter__task_file *ctx)
{
	struct task_struct *task = ctx->task;
	struct file *file = ctx->file;
	if (!task || !file || !is_target(task->tgid))
		return NULL;
	struct socket *sock = bpf_sock_from_file(file);
	if (!sock)
		return NULL;
	struct sock *sk = sock->sk;
	if (!sk || sk->sk_type != SOCK_STREAM)
		return NULL;
	return sk;
}

// Sockets of the measured processes found by ports_pass, by address, for
// conns_pass; emptied after each take-up.
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u8);
} owned SEC(".maps");

// A listener may be MPTCP (Go's default since 1.24): its connections from
// plain TCP clients are TCP.
SEC("iter/task_file")
int ports_pass(struct bpf_iter__task_file *ctx)
{
	struct sock *sk = stream_sock_of(ctx);
	if (!sk)
		return 0;
	if (sk->sk_protocol == IPPROTO_TCP) {
		__u64 addr = (__u64)sk;
		__u8 one = 1;
		if (bpf_map_update_elem(&owned, &addr, &one, BPF_ANY))
			drop(DROP_CONNS);
	}
	if ((sk->sk_protocol == IPPROTO_TCP || sk->sk_protocol == IPPROTO_MPTCP) &&
	    sk->__sk_common.skc_state == TCP_LISTEN)
		set_bit(&ports, sk->__sk_common.skc_num);
	return 0;
}

SEC("iter/tcp")
int conns_pass(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	if (!skc)
		return 0;
	__u64 addr = (__u64)skc;
	if (!bpf_map_lookup_elem(&owned, &addr))
		return 0;
	struct tcp_sock *tp = bpf_skc_to_tcp_sock(skc);
	if (!tp)
		return 0;
	struct sock *sk = (struct sock *)tp;
	if (bpf_sk_storage_get(&conns, sk, 0, 0))
		return 0;
	int state = sk->__sk_common.skc_state;
	if (state == TCP_ESTABLISHED || state == TCP_CLOSE_WAIT)
		new_conn(sk, has_bit(&ports, sk->__sk_common.skc_num) ? DIR_INBOUND : DIR_OUTBOUND);
	else if (state == TCP_SYN_SENT) // connecting as the programs attached
		new_conn(sk, DIR_OUTBOUND);
	return 0;
}

// released ends a stall once its bytes have all been sent (snd_nxt past
// them), at the socket's last transmit time (tcp_wstamp_ns, taken from
// CLOCK_MONOTONIC when a segment leaves). It is checked at the
// connection's next event rather than at every packet the machine sends:
// a response's stall is ended when the next request arrives, or at the
// next send, read or close.
static __always_inline void released(struct conn *c, struct tcp_sock *tp)
{
	if (!c->held_ts || (__s32)(tp->snd_nxt - c->held_seq) < 0)
		return;
	__u64 sent = tp->tcp_wstamp_ns, d = sent > c->held_ts ? sent - c->held_ts : 0;
	struct flow *f = flow_at(c->slot);
	if (f) {
		if (c->held_nagle)
			add(&f->stall_ns, &f->stall_n, d);
		else
			add(&f->stall_nd_ns, &f->stall_nd_n, d);
	}
	c->held_ts = 0;
}

// Inbound connections are known from the handshake's end on a listening
// port (so that a request sent before accept() is seen); outbound ones from
// connect() in a measured process; listening ports from listen() in one.
SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(on_state, struct sock *sk, int oldstate, int newstate)
{
	if (sk->sk_protocol != IPPROTO_TCP)
		return 0;
	__u64 addr = (__u64)sk;
	if (oldstate == TCP_ESTABLISHED || oldstate == TCP_CLOSE_WAIT) { // closing
		struct conn *c = conn_of(sk);
		struct tcp_sock *tp = bpf_skc_to_tcp_sock(sk);
		if (c && tp)
			released(c, tp);
	}
	if (newstate == TCP_CLOSE) {
		if (want_backlog)
			bpf_map_delete_elem(&pending, &addr);
	} else if (oldstate == TCP_SYN_RECV && newstate == TCP_ESTABLISHED) {
		if (!has_bit(&ports, sk->__sk_common.skc_num))
			return 0;
		struct conn *c = new_conn(sk, DIR_INBOUND);
		if (!c || !want_backlog)
			return 0;
		struct pending p = {.est_ts = bpf_ktime_get_ns(), .slot = c->slot};
		if (bpf_map_update_elem(&pending, &addr, &p, BPF_ANY))
			drop(DROP_PENDING);
		else
			c->pending = 1;
	} else if (newstate == TCP_SYN_SENT && current_is_target()) {
		new_conn(sk, DIR_OUTBOUND);
	} else if (newstate == TCP_LISTEN && current_is_target()) {
		set_bit(&ports, sk->__sk_common.skc_num);
	}
	return 0;
}

// sock_of returns the socket behind file descriptor fd of the current
// process (0 if none), read from its file table.
static __always_inline __u64 sock_of(long fd)
{
	// The task's pointers are read directly (the verifier guards each
	// load); the file table's slot and what follows it, by helper.
	struct task_struct *task = bpf_get_current_task_btf();
	struct fdtable *fdt = task->files->fdt;
	if (!fdt || fd >= fdt->max_fds)
		return 0;
	struct file **fds = fdt->fd;
	struct file *f = NULL;
	if (bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]) || !f)
		return 0;
	struct socket *sock = BPF_CORE_READ(f, private_data);
	return (__u64)BPF_CORE_READ(sock, sk);
}

// accepted ends the wait to be accepted of the connection accept()
// returned (fd ret) to a measured process.
static __always_inline void accepted(long ret)
{
	if (ret < 0 || !current_is_target())
		return;
	__u64 addr = sock_of(ret);
	if (!addr)
		return;
	struct pending *p = bpf_map_lookup_elem(&pending, &addr);
	if (!p || p->accept_ts)
		return;
	p->accept_ts = bpf_ktime_get_ns();
	struct flow *f = flow_at(p->slot);
	if (f)
		add(&f->backlog_ns, &f->backlog_n, p->accept_ts - p->est_ts);
}

// accept() has no tracepoint of its own among the raw ones: the accept
// calls' returns are seen at their system call tracepoints
// (syscalls:sys_exit_accept4 and sys_exit_accept), whose programs run on
// those calls alone (the kernel tests every other call's number against
// its set of traced calls and goes on), or, where those cannot be
// attached, by on_sys_exit, on every system call's return of the machine.
// Either is attached only when asked for.
struct syscall_exit {
	__u64 common; // the event's common fields
	__s32 nr;
	__s32 pad;
	long ret;
};

SEC("tracepoint/syscalls/sys_exit_accept4")
int on_accept4(struct syscall_exit *ctx)
{
	accepted(ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_accept")
int on_accept(struct syscall_exit *ctx)
{
	accepted(ctx->ret);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret)
{
	long nr = regs->orig_ax;
	if (nr == NR_ACCEPT || nr == NR_ACCEPT4)
		accepted(ret);
	return 0;
}

// has_unread tells whether bytes the service has not read wait on the
// connection. The peer's FIN takes a sequence number and is not data;
// reading it (a read returning 0) moves copied_seq past it.
static __always_inline bool has_unread(struct sock *sk, struct tcp_sock *tp)
{
	__s32 n = (__s32)(tp->rcv_nxt - tp->copied_seq);
	if (BPF_CORE_READ_BITFIELD(sk, sk_shutdown) & RCV_SHUTDOWN)
		n--;
	return n > 0;
}

// start_request starts a request on an inbound connection: its first bytes
// arrived at now, not yet read.
static __always_inline void start_request(struct conn *c, __u64 now)
{
	c->idle = 0;
	c->unread_ts = now;
	struct flow *f = flow_at(c->slot);
	if (f)
		__sync_fetch_and_add(&f->exchanges, 1);
}

// The service handed bytes to the kernel: an inbound connection has
// answered (its next bytes are a new request), an outbound one awaits an
// answer. Bytes left in the send queue untransmitted start a stall.
SEC("tp_btf/sock_send_length")
int BPF_PROG(on_send, struct sock *sk, int ret, int flags)
{
	if (ret <= 0)
		return 0;
	struct conn *c = conn_of(sk);
	if (!c)
		return 0;
	struct tcp_sock *tp = bpf_skc_to_tcp_sock(sk);
	if (!tp)
		return 0;
	bool nagle = !(BPF_CORE_READ_BITFIELD(tp, nonagle) & TCP_NAGLE_OFF);
	if (!c->sent) {
		c->sent = 1;
		struct flow *f = flow_at(c->slot);
		if (f)
			*(nagle ? &f->conns_nagle : &f->conns_nodelay) += 1;
	}
	__u64 now = 0;
	if (c->dir == DIR_INBOUND) {
		// This tracepoint runs at the end of sendmsg: a loopback client
		// may have had the answer, and its next request be queued (the
		// socket's backlog is processed before sendmsg returns), while
		// the connection still looked busy to sk_data_ready. Bytes
		// received and not yet read then start the next request now; a
		// client that read the answer and closed has sent a FIN, no
		// request.
		if (!c->unread_ts && has_unread(sk, tp)) {
			now = bpf_ktime_get_ns();
			start_request(c, now);
		} else {
			c->idle = 1;
		}
	} else {
		// A send while an answer is awaited is a call overlapping
		// another on the connection (HTTP/2, gRPC, pipelining), or a
		// request written in parts: the kernel cannot tell them apart,
		// and counts it, so that the answers are not taken for calls.
		// A request sent whole is timed from its transmission.
		now = tp->write_seq == tp->snd_nxt ? stamp(tp) : bpf_ktime_get_ns();
		if (c->send_ts) {
			struct flow *f = flow_at(c->slot);
			if (f)
				f->overlaps++;
		} else {
			c->first_ts = now;
		}
		c->send_ts = now;
	}
	released(c, tp);
	__u32 wseq = tp->write_seq, nxt = tp->snd_nxt;
	if (wseq != nxt) {
		if (!c->held_ts) {
			c->held_ts = now ? now : bpf_ktime_get_ns();
			c->held_nagle = nagle;
		}
		c->held_seq = wseq;
	}
	return 0;
}

// Bytes arrived: on an idle inbound connection they start a request; on an
// outbound one awaiting an answer they are the answer. Outbound bytes that
// arrive with nothing awaited (more of an answer, the answers of calls
// overlapping on the connection, the peer's own messages) are a burst:
// their wait to be read is timed all the same.
SEC("tp_btf/sk_data_ready")
int BPF_PROG(on_ready, struct sock *sk)
{
	struct conn *c = conn_of(sk);
	if (!c)
		return 0;
	struct tcp_sock *tp = bpf_skc_to_tcp_sock(sk);
	if (!tp)
		return 0;
	if (c->held_ts)
		released(c, tp);
	// TCP calls sk_data_ready when data is queued, and at the peer's
	// FIN, which is not data: at a FIN, only bytes that came with it
	// count.
	if ((BPF_CORE_READ_BITFIELD(sk, sk_shutdown) & RCV_SHUTDOWN) && !has_unread(sk, tp))
		return 0;
	__u64 now = stamp(tp); // the segment's processing began
	if (c->dir == DIR_INBOUND) {
		if (!c->idle || c->unread_ts)
			return 0;
		start_request(c, now);
		return 0;
	}
	struct flow *f = flow_at(c->slot);
	if (!c->send_ts) {
		if (c->unread_ts)
			return 0;
		c->unread_ts = now;
		if (f)
			f->bursts++;
		return 0;
	}
	if (f) {
		f->peer_ns += since(now, c->send_ts);
		f->turn_ns += since(now, c->first_ts);
		f->exchanges++; // an outbound flow's: this program's alone
	}
	c->send_ts = 0;
	if (!c->unread_ts) // bytes still unread wait on from their arrival
		c->unread_ts = now;
	return 0;
}

// A connection's first read ends its time in pending: a request that
// arrived before accept() waited to be read from accept() on (the time
// before is the accept backlog's), so the two do not overlap.
static __always_inline void first_read(struct conn *c, struct sock *sk)
{
	__u64 addr = (__u64)sk;
	struct pending *p = bpf_map_lookup_elem(&pending, &addr);
	if (p) {
		if (c->unread_ts && p->accept_ts > c->unread_ts)
			c->unread_ts = p->accept_ts;
		bpf_map_delete_elem(&pending, &addr);
	}
	c->pending = 0;
}

// The service read bytes: the request's or answer's wait to be read ends.
SEC("tp_btf/sock_recv_length")
int BPF_PROG(on_recv, struct sock *sk, int ret, int flags)
{
	if (ret <= 0 || (flags & MSG_PEEK))
		return 0;
	struct conn *c = conn_of(sk);
	if (!c)
		return 0;
	if (c->held_ts) {
		struct tcp_sock *tp = bpf_skc_to_tcp_sock(sk);
		if (tp)
			released(c, tp);
	}
	if (c->pending)
		first_read(c, sk);
	if (!c->unread_ts)
		return 0;
	struct flow *f = flow_at(c->slot);
	if (f)
		add_own(&f->unread_ns, &f->unread_n, since(bpf_ktime_get_ns(), c->unread_ts));
	c->unread_ts = 0;
	return 0;
}
