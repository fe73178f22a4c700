package ktrace

import (
	"fmt"

	"golang.org/x/sys/unix"

	"perflab/internal/runfmt"
)

// Sleep classes recorded at switch-out (CLASS_* in bpf/ktrace.bpf.c).
const (
	classInterruptible   = 1
	classUninterruptible = 2
	classOther           = 3
)

// syscall is a system call's name and the state of a thread asleep in it.
type syscall struct {
	name  string
	state runfmt.ThreadState
}

// syscalls names the system calls that classify waits, and common others,
// with the state of a thread asleep in them (interruptibly; a sleep in
// state D is runfmt.ThreadDisk whatever the call): sleeping for a time,
// a futex (locks and conditions, and idle worker threads parked until
// there is work: a Go runtime's idle Ms, a thread pool's), waiting for
// readiness or for a socket (blocking reads and writes on sockets, also
// on pipes and terminals: the call does not say which), or another call.
// archSyscalls adds the calls only some architectures have. The numbers
// are the build architecture's (x/sys/unix).
var syscalls = map[int]syscall{
	unix.SYS_NANOSLEEP:       {"nanosleep", runfmt.ThreadSleep},
	unix.SYS_CLOCK_NANOSLEEP: {"clock_nanosleep", runfmt.ThreadSleep},
	unix.SYS_FUTEX:           {"futex", runfmt.ThreadFutex},
	unix.SYS_FUTEX_WAITV:     {"futex_waitv", runfmt.ThreadFutex},
	unix.SYS_EPOLL_PWAIT:     {"epoll_pwait", runfmt.ThreadNetwork},
	unix.SYS_EPOLL_PWAIT2:    {"epoll_pwait2", runfmt.ThreadNetwork},
	unix.SYS_PPOLL:           {"ppoll", runfmt.ThreadNetwork},
	unix.SYS_PSELECT6:        {"pselect6", runfmt.ThreadNetwork},
	unix.SYS_READ:            {"read", runfmt.ThreadNetwork},
	unix.SYS_READV:           {"readv", runfmt.ThreadNetwork},
	unix.SYS_WRITE:           {"write", runfmt.ThreadNetwork},
	unix.SYS_WRITEV:          {"writev", runfmt.ThreadNetwork},
	unix.SYS_RECVFROM:        {"recvfrom", runfmt.ThreadNetwork},
	unix.SYS_RECVMSG:         {"recvmsg", runfmt.ThreadNetwork},
	unix.SYS_RECVMMSG:        {"recvmmsg", runfmt.ThreadNetwork},
	unix.SYS_SENDTO:          {"sendto", runfmt.ThreadNetwork},
	unix.SYS_SENDMSG:         {"sendmsg", runfmt.ThreadNetwork},
	unix.SYS_SENDMMSG:        {"sendmmsg", runfmt.ThreadNetwork},
	unix.SYS_ACCEPT4:         {"accept4", runfmt.ThreadNetwork},
	unix.SYS_CONNECT:         {"connect", runfmt.ThreadNetwork},
	unix.SYS_WAIT4:           {"wait4", runfmt.ThreadOther},
	unix.SYS_WAITID:          {"waitid", runfmt.ThreadOther},
	unix.SYS_RT_SIGTIMEDWAIT: {"rt_sigtimedwait", runfmt.ThreadOther},
	unix.SYS_RT_SIGSUSPEND:   {"rt_sigsuspend", runfmt.ThreadOther},
	unix.SYS_IO_URING_ENTER:  {"io_uring_enter", runfmt.ThreadOther},
	unix.SYS_IO_GETEVENTS:    {"io_getevents", runfmt.ThreadOther},
	unix.SYS_FSYNC:           {"fsync", runfmt.ThreadOther},
	unix.SYS_FLOCK:           {"flock", runfmt.ThreadOther},
}

// classify returns the state of a thread off a CPU from its sleep class
// and system call number (-1: not in a call), and the call's name ("" when
// not in a call): a sleep outside a call, or a stopped or traced thread,
// is runfmt.ThreadOther.
func classify(class uint32, nr int32) (runfmt.ThreadState, string) {
	name := ""
	if nr >= 0 {
		name = fmt.Sprintf("syscall %d", nr)
		if s, ok := lookupSyscall(nr); ok {
			name = s.name
		}
	}
	switch {
	case class == classUninterruptible:
		return runfmt.ThreadDisk, name
	case class != classInterruptible || nr < 0:
		return runfmt.ThreadOther, name
	}
	if s, ok := lookupSyscall(nr); ok {
		return s.state, name
	}
	return runfmt.ThreadOther, name
}

func lookupSyscall(nr int32) (syscall, bool) {
	if s, ok := syscalls[int(nr)]; ok {
		return s, true
	}
	s, ok := archSyscalls[int(nr)]
	return s, ok
}
