package ktrace

import (
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"perflab/internal/runfmt"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		class uint32
		nr    int32
		kind  runfmt.ThreadState
		name  string
	}{
		{classInterruptible, unix.SYS_CLOCK_NANOSLEEP, runfmt.ThreadSleep, "clock_nanosleep"},
		{classInterruptible, unix.SYS_NANOSLEEP, runfmt.ThreadSleep, "nanosleep"},
		{classInterruptible, unix.SYS_FUTEX, runfmt.ThreadFutex, "futex"},
		{classInterruptible, unix.SYS_EPOLL_PWAIT, runfmt.ThreadNetwork, "epoll_pwait"},
		{classInterruptible, unix.SYS_RECVFROM, runfmt.ThreadNetwork, "recvfrom"},
		{classInterruptible, unix.SYS_READ, runfmt.ThreadNetwork, "read"},
		{classInterruptible, unix.SYS_WAIT4, runfmt.ThreadOther, "wait4"},
		{classInterruptible, 9999, runfmt.ThreadOther, "syscall 9999"},
		{classInterruptible, -1, runfmt.ThreadOther, ""},
		// Uninterruptible is disk, whatever the call; stopped is other.
		{classUninterruptible, unix.SYS_READ, runfmt.ThreadDisk, "read"},
		{classUninterruptible, -1, runfmt.ThreadDisk, ""},
		{classOther, unix.SYS_FUTEX, runfmt.ThreadOther, "futex"},
	} {
		kind, name := classify(c.class, c.nr)
		if kind != c.kind || name != c.name {
			t.Errorf("classify(%d, %d) = %s, %q; want %s, %q", c.class, c.nr, kind, name, c.kind, c.name)
		}
	}
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// Per-CPU values are summed; off-CPU keys of one kind add up under it.
func TestTotalsFromKernel(t *testing.T) {
	tot := newTotals()
	tot.addProc(7, []kProc{{OncpuNs: 3e6, OncpuN: 2, RunqNs: 1e6, RunqN: 1}, {OncpuNs: 1e6, OncpuN: 1}})
	tot.addWait(kOffKey{Tgid: 7, Nr: unix.SYS_FUTEX, StackID: -1, Class: classInterruptible}, []kWaitStat{{Ns: 5e6, N: 1}, {Ns: 5e6, N: 1}})
	tot.addWait(kOffKey{Tgid: 7, Nr: -1, StackID: 4, Class: classUninterruptible}, []kWaitStat{{Ns: 2e6, N: 1}})
	tot.addWait(kOffKey{Tgid: 7, Nr: unix.SYS_READ, StackID: -1, Class: classUninterruptible}, []kWaitStat{{Ns: 1e6, N: 1}})
	p := tot.Procs[7]
	want := Proc{
		OnCPU:    Stat{3, ms(4)},
		Runnable: Stat{1, ms(1)},
		OffCPU:   map[runfmt.ThreadState]Stat{runfmt.ThreadFutex: {2, ms(10)}, runfmt.ThreadDisk: {2, ms(3)}},
		Waits: []Wait{
			{Kind: runfmt.ThreadFutex, Syscall: unix.SYS_FUTEX, Name: "futex", Stack: -1, Stat: Stat{2, ms(10)}},
			{Kind: runfmt.ThreadDisk, Syscall: -1, Name: "", Stack: 4, Stat: Stat{1, ms(2)}},
			{Kind: runfmt.ThreadDisk, Syscall: unix.SYS_READ, Name: "read", Stack: -1, Stat: Stat{1, ms(1)}},
		},
	}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("process 7:\n got %+v\nwant %+v", p, want)
	}
}

func TestFlowsFromKernel(t *testing.T) {
	tot := newTotals()
	in := kFlowKey{Dir: dirInbound, Port: 8080}
	tot.addFlow(in, []kFlow{
		{Conns: 2, ConnsNagle: 1, Exchanges: 10, UnreadNs: 5e6, UnreadN: 10, BacklogNs: 1e6, BacklogN: 2, StallNs: 40e6, StallN: 1},
		{Exchanges: 5, UnreadNs: 1e6, UnreadN: 5, ConnsNodelay: 1, StallNdNs: 1e3, StallNdN: 1},
	})
	v6mapped := kFlowKey{Dir: dirOutbound, Family: afInet6, Port: 5432, Addr: [16]byte{10: 0xff, 11: 0xff, 12: 127, 15: 1}}
	tot.addFlow(v6mapped, []kFlow{{Conns: 1, Exchanges: 4, PeerNs: 80e6, TurnNs: 84e6, Overlaps: 1, UnreadNs: 2e6, UnreadN: 4},
		{Exchanges: 1, PeerNs: 10e6, TurnNs: 10e6, Bursts: 2, UnreadNs: 1e6, UnreadN: 2}})
	v4 := kFlowKey{Dir: dirOutbound, Family: afInet, Port: 6379, Addr: [16]byte{10, 0, 0, 2}}
	tot.addFlow(v4, []kFlow{{Conns: 1}})

	wantIn := Inbound{
		Sends:    Sends{Conns: 2, NagleConns: 1, NoDelayConns: 1, Stalls: Stat{1, ms(40)}, NoDelayStalls: Stat{1, time.Microsecond}},
		Requests: 15, Unread: Stat{15, ms(6)}, Backlog: Stat{2, ms(1)},
	}
	if got := tot.Inbound[8080]; got != wantIn {
		t.Errorf("inbound 8080:\n got %+v\nwant %+v", got, wantIn)
	}
	pg := netip.MustParseAddrPort("127.0.0.1:5432")
	if got, want := tot.Outbound[pg], (Outbound{Sends: Sends{Conns: 1}, Answers: Stat{5, ms(90)}, Turns: Stat{5, ms(94)}, Overlaps: 1, Bursts: 2,
		Unread: Stat{6, ms(3)}}); got != want {
		t.Errorf("outbound %v (an IPv4 peer of an IPv6 socket):\n got %+v\nwant %+v", pg, got, want)
	}
	if _, ok := tot.Outbound[netip.MustParseAddrPort("10.0.0.2:6379")]; !ok || len(tot.Outbound) != 2 {
		t.Errorf("outbound peers %v, want 127.0.0.1:5432 and 10.0.0.2:6379", tot.Outbound)
	}
}

// A window is the later reading minus the earlier one, figure by figure;
// a wait absent from the earlier reading counts whole.
func TestTotalsSub(t *testing.T) {
	peer := netip.MustParseAddrPort("127.0.0.1:9000")
	earlier := Totals{
		Procs: map[int]Proc{1: {OnCPU: Stat{1, ms(1)}, OffCPU: map[runfmt.ThreadState]Stat{runfmt.ThreadSleep: {1, ms(30)}},
			Waits: []Wait{{Kind: runfmt.ThreadSleep, Syscall: 230, Stack: -1, Stat: Stat{1, ms(30)}}}}},
		Inbound:        map[uint16]Inbound{80: {Requests: 3, Unread: Stat{3, ms(3)}, Sends: Sends{Conns: 1}}},
		Outbound:       map[netip.AddrPort]Outbound{peer: {Answers: Stat{2, ms(40)}, Turns: Stat{2, ms(45)}, Overlaps: 1, Bursts: 3}},
		Dropped:        Dropped{Threads: 1},
		ProgramCPU:     ms(1),
		Programs:       map[string]Stat{"on_switch": {10, ms(1)}},
		ProgramCounted: ms(50), ProgramElapsed: ms(500),
	}
	later := Totals{
		Procs: map[int]Proc{
			1: {OnCPU: Stat{3, ms(4)}, OffCPU: map[runfmt.ThreadState]Stat{runfmt.ThreadSleep: {2, ms(60)}, runfmt.ThreadFutex: {1, ms(5)}},
				Waits: []Wait{{Kind: runfmt.ThreadSleep, Syscall: 230, Stack: -1, Stat: Stat{2, ms(60)}}, {Kind: runfmt.ThreadFutex, Syscall: 202, Stack: -1, Stat: Stat{1, ms(5)}}}},
			2: {Runnable: Stat{1, ms(2)}, OffCPU: map[runfmt.ThreadState]Stat{}},
		},
		Inbound:        map[uint16]Inbound{80: {Requests: 5, Unread: Stat{5, ms(4)}, Sends: Sends{Conns: 2}}},
		Outbound:       map[netip.AddrPort]Outbound{peer: {Answers: Stat{3, ms(60)}, Turns: Stat{3, ms(70)}, Overlaps: 4, Bursts: 3}},
		Unmeasured:     map[Measure]string{Stacks: "not asked for"},
		Dropped:        Dropped{Threads: 3, Stacks: 1},
		ProgramCPU:     ms(3),
		Programs:       map[string]Stat{"on_switch": {30, ms(3)}},
		ProgramCounted: ms(150), ProgramElapsed: ms(1500),
	}
	want := Totals{
		Procs: map[int]Proc{
			1: {OnCPU: Stat{2, ms(3)}, OffCPU: map[runfmt.ThreadState]Stat{runfmt.ThreadSleep: {1, ms(30)}, runfmt.ThreadFutex: {1, ms(5)}},
				Waits: []Wait{{Kind: runfmt.ThreadSleep, Syscall: 230, Stack: -1, Stat: Stat{1, ms(30)}}, {Kind: runfmt.ThreadFutex, Syscall: 202, Stack: -1, Stat: Stat{1, ms(5)}}}},
			2: {Runnable: Stat{1, ms(2)}, OffCPU: map[runfmt.ThreadState]Stat{}},
		},
		Inbound:        map[uint16]Inbound{80: {Requests: 2, Unread: Stat{2, ms(1)}, Sends: Sends{Conns: 1}}},
		Outbound:       map[netip.AddrPort]Outbound{peer: {Answers: Stat{1, ms(20)}, Turns: Stat{1, ms(25)}, Overlaps: 3}},
		Unmeasured:     map[Measure]string{Stacks: "not asked for"},
		Dropped:        Dropped{Threads: 2, Stacks: 1},
		ProgramCPU:     ms(2),
		Programs:       map[string]Stat{"on_switch": {20, ms(2)}},
		ProgramCounted: ms(100), ProgramElapsed: ms(1000),
	}
	if got := later.Sub(earlier); !reflect.DeepEqual(got, want) {
		t.Errorf("later.Sub(earlier):\n got %+v\nwant %+v", got, want)
	}
	if d := want.Dropped.Total(); d != 3 {
		t.Errorf("Dropped.Total() = %d, want 3", d)
	}
	if m := (Stat{4, ms(10)}).Mean(); m != 2500*time.Microsecond {
		t.Errorf("mean of 4 in 10 ms = %v", m)
	}
	if m := (Stat{}).Mean(); m != 0 {
		t.Errorf("mean of none = %v, want 0", m)
	}
}

// Every measure a refused program feeds says why, each reason once; the
// error when all fail names each reason once.
func TestUnmeasured(t *testing.T) {
	un := unmeasured{}
	for _, p := range programs {
		if p.name == "on_switch" || p.name == "on_send" {
			for _, m := range p.measures {
				un.add(m, p.name+": refused")
			}
		}
	}
	r := un.reasons()
	if r[OffCPU] != "on_switch: refused" || r[Requests] != "on_send: refused" || len(r) != 9 {
		t.Errorf("reasons: %v", r)
	}
	got := summary([]failure{{"on_switch", "refused"}, {"on_recv", "not supported"}, {"on_send", "refused"}})
	if want := "on_switch, on_send: refused; on_recv: not supported"; got != want {
		t.Errorf("summary: %q, want %q", got, want)
	}
}

// Every measure but program CPU comes from at least one program.
func TestEveryMeasureHasPrograms(t *testing.T) {
	fed := map[Measure]bool{}
	for _, p := range programs {
		for _, m := range p.measures {
			fed[m] = true
		}
	}
	for _, m := range []Measure{OnCPU, Runnable, OffCPU, Stacks, Children, Requests, RequestWait, Backlog, SendStalls, PeerTime, AnswerWait} {
		if !fed[m] {
			t.Errorf("no program feeds %s", m)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{PIDs: []int{1, 0}}, "ktrace: process id 0: not a process"},
		{Config{PIDs: []int{-3}}, "ktrace: process id -3: not a process"},
		{Config{Ports: []uint16{80, 0}}, "ktrace: port 0: not a listening port"},
	} {
		if err := c.cfg.validate(); err == nil || err.Error() != c.want {
			t.Errorf("validate: %v, want %s", err, c.want)
		}
	}
	if err := (Config{PIDs: []int{1}, Ports: []uint16{80}}).validate(); err != nil {
		t.Errorf("a valid config: %v", err)
	}
}

func TestParsePidMax(t *testing.T) {
	for in, want := range map[string]uint32{"4194304\n": 4194304, "32768\n": 32768, " 1 ": 1} {
		if got, err := parsePidMax([]byte(in)); err != nil || got != want {
			t.Errorf("parsePidMax(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0\n", "4194305\n", "-1", "12ab", "99999999999"} {
		if _, err := parsePidMax([]byte(in)); err == nil || !strings.Contains(err.Error(), "/proc/sys/kernel/pid_max") {
			t.Errorf("parsePidMax(%q): %v, want an error naming the file", in, err)
		}
	}
}

// FuzzParsePidMax: any content gives a process id in range or an error.
func FuzzParsePidMax(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := parsePidMax(b)
		if err == nil && (n == 0 || n > 1<<22) {
			t.Errorf("parsePidMax(%q) = %d", b, n)
		}
	})
}
