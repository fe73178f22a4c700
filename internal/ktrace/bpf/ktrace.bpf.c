// Kernel side of perflab's ktrace package: scheduler and TCP timing of a set
// of processes, aggregated in bounded maps that the Go side reads on demand.
// Every interval is counted when it ends; its start is kept in task or socket
// local storage (freed by the kernel with the task or socket). A failed
// insert into a map is counted in drops, never lost silently.
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
#define NR_ACCEPT 43 // x86-64
#define NR_ACCEPT4 288
#define IPPROTO_TCP 6
#define AF_INET 2
#define AF_INET6 10
#define RCV_SHUTDOWN 1
#define MSG_PEEK 2
#define TCP_NAGLE_OFF 1

// Sleep classes at switch-out; the Go side names them (see classify).
#define CLASS_INTERRUPTIBLE 1
#define CLASS_UNINTERRUPTIBLE 2
#define CLASS_OTHER 3

// Set by the loader before the programs are verified.
const volatile bool want_stacks = false; // user stacks of off-CPU intervals
const volatile bool adopt = false;       // take up connections opened before the session

// Indexes of drops: one counter per map that can refuse an insert.
enum {
	DROP_TARGETS,
	DROP_THREADS,
	DROP_CONNS,
	DROP_PROCS,
	DROP_OFFCPU,
	DROP_FLOWS,
	DROP_STACKS,
	DROP_PORTS,
	DROP_PENDING,
	NDROPS,
};

// A thread at its last switch-out (task local storage): the kernel's own
// counters of its time on a CPU and waiting for one, and why it left.
struct thread {
	__u64 out_ts;  // switched out at
	__u64 exec;    // se.sum_exec_runtime then
	__u64 delay;   // sched_info.run_delay then
	__s32 nr;      // system call it slept in (-1: none)
	__s32 stackid; // user stack at switch-out (-1: none)
	__u32 class;   // sleep class; 0: preempted, still runnable
	__u32 pad;
};

// Per process (tgid) scheduler totals.
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
	__u64 conns;                 // connections seen
	__u64 conns_nagle;           // ... whose first send had Nagle on
	__u64 conns_nodelay;         // ... whose first send had TCP_NODELAY
	__u64 exchanges;             // inbound: requests; outbound: answers
	__u64 peer_ns;               // outbound: last send -> answer's first bytes
	__u64 unread_ns, unread_n;   // first bytes arrived -> read by the service
	__u64 backlog_ns, backlog_n; // inbound: established -> accept() returned
	__u64 stall_ns, stall_n;     // sends held untransmitted, Nagle on
	__u64 stall_nd_ns, stall_nd_n; // the same with TCP_NODELAY
};

// A connection's open intervals (socket local storage).
struct conn {
	struct flowkey key;
	__u64 unread_ts; // first bytes of a request/answer arrived, not yet read
	__u64 send_ts;  // outbound: last send, no answer yet
	__u64 held_ts;  // a send left bytes untransmitted since
	__u32 held_seq; // ... up to this sequence number
	__u8 idle;      // inbound: the next bytes start a request
	__u8 sent;      // the service has sent on it
	__u8 held_nagle;
	__u8 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u16);
	__type(value, __u8);
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

// Connections established on a listening port and not yet accepted, by
// socket address: accept() gives a file descriptor, resolved to the socket
// by reading the process's file table, which yields an address.
struct pending {
	__u64 est_ts;
	__u16 port;
	__u16 pad[3];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct pending);
} pending SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct proc);
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct offkey);
	__type(value, struct waitstat);
} offcpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct flowkey);
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

static __always_inline bool is_target(__u32 tgid)
{
	return bpf_map_lookup_elem(&targets, &tgid) != NULL;
}

static __always_inline bool current_is_target(void)
{
	return is_target(bpf_get_current_pid_tgid() >> 32);
}

// lookup_or_init returns map[key], inserting zeros first if missing; a
// full map counts a drop under which.
static __always_inline void *lookup_or_init(void *map, const void *key, const void *zero, __u32 which)
{
	void *v = bpf_map_lookup_elem(map, key);
	if (v)
		return v;
	bpf_map_update_elem(map, key, zero, BPF_NOEXIST);
	v = bpf_map_lookup_elem(map, key);
	if (!v)
		drop(which);
	return v;
}

// ---- Scheduler ----

static __always_inline struct proc *proc_of(__u32 tgid)
{
	static const struct proc zero;
	return lookup_or_init(&procs, &tgid, &zero, DROP_PROCS);
}

static __always_inline void add_offcpu(struct thread *th, __u32 tgid, __u64 ns)
{
	static const struct waitstat zero;
	struct offkey k = {
		.tgid = tgid,
		.nr = th->nr,
		.stackid = th->stackid,
		.class = th->class,
	};
	struct waitstat *s = lookup_or_init(&offcpu, &k, &zero, DROP_OFFCPU);
	if (s) {
		__sync_fetch_and_add(&s->ns, ns);
		__sync_fetch_and_add(&s->n, 1);
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
	struct proc *p = proc_of(tgid);
	if (p) {
		__sync_fetch_and_add(&p->oncpu_ns, on);
		__sync_fetch_and_add(&p->oncpu_n, 1);
		if (q) {
			__sync_fetch_and_add(&p->runq_ns, q);
			__sync_fetch_and_add(&p->runq_n, 1);
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
	__u64 exec = BPF_CORE_READ(prev, se.sum_exec_runtime);
	__u64 delay = BPF_CORE_READ(prev, sched_info.run_delay);
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
	if (state & TASK_UNINTERRUPTIBLE)
		th->class = CLASS_UNINTERRUPTIBLE;
	else if (state & TASK_INTERRUPTIBLE)
		th->class = CLASS_INTERRUPTIBLE;
	else
		th->class = CLASS_OTHER;
	// The system call the thread sleeps in: its saved user registers
	// hold the call's number (orig_ax), read here rather than by a
	// program on every system call's entry.
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(prev);
	th->nr = regs ? (__s32)BPF_CORE_READ(regs, orig_ax) : -1;
	th->stackid = -1;
	if (want_stacks) {
		long id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
		if (id >= 0)
			th->stackid = id;
		else
			drop(DROP_STACKS);
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
	if (ptgid == ctgid || !is_target(ptgid))
		return 0;
	__u8 one = 1;
	if (bpf_map_update_elem(&targets, &ctgid, &one, BPF_ANY))
		drop(DROP_TARGETS);
	return 0;
}

// ---- TCP ----

static __always_inline struct flow *flow_of(struct flowkey *k)
{
	static const struct flow zero;
	return lookup_or_init(&flows, k, &zero, DROP_FLOWS);
}

static __always_inline void add(__u64 *ns, __u64 *n, __u64 d)
{
	__sync_fetch_and_add(ns, d);
	__sync_fetch_and_add(n, 1);
}

static __always_inline struct conn *new_conn(struct sock *sk, __u8 dir)
{
	struct conn *c = bpf_sk_storage_get(&conns, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!c) {
		drop(DROP_CONNS);
		return NULL;
	}
	__builtin_memset(c, 0, sizeof(*c));
	c->key.dir = dir;
	if (dir == DIR_INBOUND) {
		c->key.port = sk->__sk_common.skc_num;
		c->idle = 1;
	} else {
		__u16 family = sk->__sk_common.skc_family;
		c->key.family = family;
		c->key.port = bpf_ntohs(sk->__sk_common.skc_dport);
		if (family == AF_INET6)
			bpf_core_read(c->key.addr, 16, &sk->__sk_common.skc_v6_daddr);
		else
			bpf_core_read(c->key.addr, 4, &sk->__sk_common.skc_daddr);
	}
	struct flow *f = flow_of(&c->key);
	if (f)
		__sync_fetch_and_add(&f->conns, 1);
	return c;
}

// conn_of returns the connection's state, taking up one a measured process
// accepted or opened before its port or the session was known: one on a
// listening port is inbound; any other is outbound when adopt is set.
static __always_inline struct conn *conn_of(struct sock *sk)
{
	struct conn *c = bpf_sk_storage_get(&conns, sk, 0, 0);
	if (c)
		return c;
	if (sk->sk_protocol != IPPROTO_TCP || sk->sk_type != 1 /* SOCK_STREAM */)
		return NULL;
	__u16 lport = sk->__sk_common.skc_num;
	bool listening = bpf_map_lookup_elem(&ports, &lport) != NULL;
	if (!listening && !adopt)
		return NULL;
	if (!current_is_target())
		return NULL;
	return new_conn(sk, listening ? DIR_INBOUND : DIR_OUTBOUND);
}

// Inbound connections are known from the handshake's end on a listening
// port (so that a request sent before accept() is seen); outbound ones from
// connect() in a measured process.
SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(on_state, struct sock *sk, int oldstate, int newstate)
{
	if (sk->sk_protocol != IPPROTO_TCP)
		return 0;
	__u64 addr = (__u64)sk;
	if (newstate == TCP_CLOSE) {
		bpf_map_delete_elem(&pending, &addr);
	} else if (oldstate == TCP_SYN_RECV && newstate == TCP_ESTABLISHED) {
		__u16 lport = sk->__sk_common.skc_num;
		if (!bpf_map_lookup_elem(&ports, &lport))
			return 0;
		new_conn(sk, DIR_INBOUND);
		struct pending p = {.est_ts = bpf_ktime_get_ns(), .port = lport};
		if (bpf_map_update_elem(&pending, &addr, &p, BPF_ANY))
			drop(DROP_PENDING);
	} else if (newstate == TCP_SYN_SENT && current_is_target()) {
		new_conn(sk, DIR_OUTBOUND);
	}
	return 0;
}

// sock_of returns the socket behind file descriptor fd of the current
// process (0 if none), read from its file table.
static __always_inline __u64 sock_of(long fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	if (!fdt || fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	struct file **fds = BPF_CORE_READ(fdt, fd);
	struct file *f = NULL;
	if (bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]) || !f)
		return 0;
	struct socket *sock = BPF_CORE_READ(f, private_data);
	return (__u64)BPF_CORE_READ(sock, sk);
}

// accept() returned a connection to a measured process: its wait to be
// accepted ends, and its port becomes a listening port of the service.
// (accept has no tracepoint of its own: this one sees every system call's
// return and leaves at the first comparison for all but accept.)
SEC("tp_btf/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret)
{
	long nr = regs->orig_ax;
	if ((nr != NR_ACCEPT && nr != NR_ACCEPT4) || ret < 0 || !current_is_target())
		return 0;
	__u64 addr = sock_of(ret);
	if (!addr)
		return 0;
	struct pending *p = bpf_map_lookup_elem(&pending, &addr);
	if (!p) {
		__u16 lport = BPF_CORE_READ((struct sock *)addr, __sk_common.skc_num);
		__u8 one = 1;
		if (lport && !bpf_map_lookup_elem(&ports, &lport) &&
		    bpf_map_update_elem(&ports, &lport, &one, BPF_NOEXIST))
			drop(DROP_PORTS);
		return 0;
	}
	struct flowkey k = {.dir = DIR_INBOUND, .port = p->port};
	struct flow *f = flow_of(&k);
	if (f)
		add(&f->backlog_ns, &f->backlog_n, bpf_ktime_get_ns() - p->est_ts);
	bpf_map_delete_elem(&pending, &addr);
	return 0;
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
	__u64 now = bpf_ktime_get_ns();
	bool nagle = !(BPF_CORE_READ_BITFIELD_PROBED(tp, nonagle) & TCP_NAGLE_OFF);
	if (!c->sent) {
		c->sent = 1;
		struct flow *f = flow_of(&c->key);
		if (f)
			__sync_fetch_and_add(nagle ? &f->conns_nagle : &f->conns_nodelay, 1);
	}
	if (c->key.dir == DIR_INBOUND)
		c->idle = 1;
	else
		c->send_ts = now;
	__u32 wseq = tp->write_seq, nxt = tp->snd_nxt;
	if (wseq != nxt) {
		if (!c->held_ts) {
			c->held_ts = now;
			c->held_nagle = nagle;
		}
		c->held_seq = wseq;
	}
	return 0;
}

// A packet is queued to a device: a held stall ends when the segment
// carrying its last byte leaves. The segment's end is read from its TCP
// header (at the transport offset; skb->len counts from skb->data).
SEC("tp_btf/net_dev_queue")
int BPF_PROG(on_xmit, struct sk_buff *skb)
{
	struct sock *sk = skb->sk;
	if (!sk)
		return 0;
	struct conn *c = bpf_sk_storage_get(&conns, sk, 0, 0);
	if (!c || !c->held_ts)
		return 0;
	unsigned char *head = BPF_CORE_READ(skb, head), *data = BPF_CORE_READ(skb, data);
	__u16 toff = BPF_CORE_READ(skb, transport_header);
	struct tcphdr th;
	if (bpf_probe_read_kernel(&th, sizeof(th), head + toff))
		return 0;
	__u32 hdrs = (__u32)(head + toff - data) + th.doff * 4;
	__u32 len = BPF_CORE_READ(skb, len);
	if (len <= hdrs)
		return 0; // no payload: an ACK
	__u32 end = bpf_ntohl(th.seq) + (len - hdrs);
	if ((__s32)(end - c->held_seq) < 0)
		return 0;
	struct flow *f = flow_of(&c->key);
	if (f) {
		__u64 d = bpf_ktime_get_ns() - c->held_ts;
		if (c->held_nagle)
			add(&f->stall_ns, &f->stall_n, d);
		else
			add(&f->stall_nd_ns, &f->stall_nd_n, d);
	}
	c->held_ts = 0;
	return 0;
}
// Bytes arrived: on an idle inbound connection they start a request; on an
// outbound one awaiting an answer they are the answer.
SEC("tp_btf/sk_data_ready")
int BPF_PROG(on_ready, struct sock *sk)
{
	struct conn *c = bpf_sk_storage_get(&conns, sk, 0, 0);
	if (!c)
		return 0;
	if (BPF_CORE_READ_BITFIELD_PROBED(sk, sk_shutdown) & RCV_SHUTDOWN)
		return 0; // the peer closed: not data
	struct tcp_sock *tp = bpf_skc_to_tcp_sock(sk);
	if (!tp || tp->rcv_nxt == tp->copied_seq)
		return 0;
	__u64 now = bpf_ktime_get_ns();
	if (c->key.dir == DIR_INBOUND) {
		if (!c->idle || c->unread_ts)
			return 0;
		c->idle = 0;
		c->unread_ts = now;
		struct flow *f = flow_of(&c->key);
		if (f)
			__sync_fetch_and_add(&f->exchanges, 1);
		return 0;
	}
	if (!c->send_ts)
		return 0;
	struct flow *f = flow_of(&c->key);
	if (f) {
		__sync_fetch_and_add(&f->peer_ns, now - c->send_ts);
		__sync_fetch_and_add(&f->exchanges, 1);
	}
	c->send_ts = 0;
	c->unread_ts = now;
	return 0;
}

// The service read bytes: the request's or answer's wait to be read ends.
SEC("tp_btf/sock_recv_length")
int BPF_PROG(on_recv, struct sock *sk, int ret, int flags)
{
	if (ret <= 0 || (flags & MSG_PEEK))
		return 0;
	struct conn *c = conn_of(sk);
	if (!c || !c->unread_ts)
		return 0;
	struct flow *f = flow_of(&c->key);
	if (f)
		add(&f->unread_ns, &f->unread_n, bpf_ktime_get_ns() - c->unread_ts);
	c->unread_ts = 0;
	return 0;
}
