package ktrace

import (
	"slices"
	"strings"
)

// Measure names one figure of Totals that depends on kernel programs
// attaching; Totals.Unmeasured says, per measure, why it was not measured.
type Measure string

// The measures. A caller shows a measure listed in Totals.Unmeasured as
// "not measured: <reason>", never as 0.
const (
	// OnCPU is Proc.OnCPU.
	OnCPU Measure = "on-cpu"
	// Runnable is Proc.Runnable: waiting for a CPU.
	Runnable Measure = "runnable"
	// OffCPU is Proc.OffCPU and Proc.Waits: asleep, by reason.
	OffCPU Measure = "off-cpu"
	// Stacks is Wait.Stack, asked for with Config.Stacks.
	Stacks Measure = "off-cpu stacks"
	// Children is following the processes that measured processes fork.
	Children Measure = "forked processes"
	// Requests is Inbound.Requests.
	Requests Measure = "requests"
	// RequestWait is Inbound.Unread: requests waiting to be read.
	RequestWait Measure = "waiting to be read"
	// Backlog is Inbound.Backlog: connections waiting to be accepted.
	Backlog Measure = "accept backlog"
	// SendStalls is Sends.Stalls and Sends.NoDelayStalls, and the
	// connections' Nagle settings.
	SendStalls Measure = "send stalls"
	// PeerTime is Outbound.Answers: the peers' time to answer.
	PeerTime Measure = "peer answer time"
	// AnswerWait is Outbound.Unread: answers waiting to be read.
	AnswerWait Measure = "answers waiting to be read"
	// ProgramCPU is Totals.ProgramCPU and Totals.Programs.
	ProgramCPU Measure = "program cpu"
	// OpenConnections is the connections open when the session started
	// (or a process was added), and the ports listening then: without
	// it, only those opened and listened on afterwards are seen.
	OpenConnections Measure = "connections open at the start"
)

// program is one kernel program of bpf/ktrace.bpf.c and the measures that
// need it attached.
type program struct {
	name     string
	measures []Measure
}

// iterators are run, in this order, when the session starts and when a
// process is added: they take up its listening ports and connections.
var iterators = []program{
	{"ports_pass", []Measure{OpenConnections}},
	{"conns_pass", []Measure{OpenConnections}},
}

// programs lists the kernel programs in the order they are attached (those
// of the accept backlog last, by attachBacklog).
var programs = []program{
	{"on_switch", []Measure{OnCPU, Runnable, OffCPU, Stacks}},
	{"on_fork", []Measure{Children}},
	{"on_state", []Measure{Backlog, Requests, RequestWait, PeerTime, AnswerWait}},
	{"on_accept4", []Measure{Backlog}},
	{"on_accept", []Measure{Backlog}},
	{"on_sys_exit", []Measure{Backlog}},
	{"on_send", []Measure{Requests, RequestWait, SendStalls, PeerTime, AnswerWait}},
	{"on_ready", []Measure{Requests, RequestWait, PeerTime, AnswerWait, SendStalls}},
	{"on_recv", []Measure{RequestWait, AnswerWait}},
}

// scheduler says whether the program is one of the scheduler's (what
// Config.SchedulerOnly keeps).
func (p program) scheduler() bool { return p.name == "on_switch" || p.name == "on_fork" }

// acceptCall is a system call whose return ends a connection's wait to
// be accepted, and the program at its tracepoint.
type acceptCall struct{ call, program string }

// acceptCalls are the accept calls (see attachBacklog).
var acceptCalls = []acceptCall{{"accept4", "on_accept4"}, {"accept", "on_accept"}}

// acceptAnyCall is the program that sees them at every system call's
// return instead.
const acceptAnyCall = "on_sys_exit"

// backlog says whether the program times the accept backlog (attached
// with Config.AcceptBacklog, by attachBacklog).
func (p program) backlog() bool {
	return p.name == acceptAnyCall || slices.ContainsFunc(acceptCalls, func(c acceptCall) bool { return c.program == p.name })
}

// unmeasured collects, per measure, why it is not measured; a measure
// needing several programs that failed lists each failure once.
type unmeasured map[Measure][]string

func (u unmeasured) add(m Measure, why string) {
	if !slices.Contains(u[m], why) {
		u[m] = append(u[m], why)
	}
}

// reasons returns the reasons as one line per measure.
func (u unmeasured) reasons() map[Measure]string {
	out := make(map[Measure]string, len(u))
	for m, why := range u {
		out[m] = strings.Join(why, "; ")
	}
	return out
}

// failure is a program the kernel did not take, and why.
type failure struct{ program, why string }

// summary says why each program failed, the programs that failed alike
// together: "on_switch, on_send: why; on_recv: why2".
func summary(failures []failure) string {
	var whys []string
	progs := map[string][]string{}
	for _, f := range failures {
		if progs[f.why] == nil {
			whys = append(whys, f.why)
		}
		progs[f.why] = append(progs[f.why], f.program)
	}
	parts := make([]string, len(whys))
	for i, why := range whys {
		parts[i] = strings.Join(progs[why], ", ") + ": " + why
	}
	return strings.Join(parts, "; ")
}
