package ktrace

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// WaitKind is why a thread was off a CPU: the kind of sleep, from the
// sleep's state and the system call the thread slept in.
type WaitKind string

// The kinds of waits. Every off-CPU interval has exactly one.
const (
	// WaitSleep is sleeping for a time: nanosleep, clock_nanosleep.
	WaitSleep WaitKind = "sleep"
	// WaitFutex is waiting on a futex: locks and conditions, and also
	// idle worker threads parked until there is work (a Go runtime's
	// idle Ms, a thread pool's idle threads).
	WaitFutex WaitKind = "futex"
	// WaitDisk is an uninterruptible sleep (state D): disk I/O, page
	// faults reading from disk, some kernel locks; whatever the call.
	WaitDisk WaitKind = "disk"
	// WaitNetwork is waiting for readiness or for a socket: epoll_wait,
	// poll, select, and blocking read, write, recv, send, accept and
	// connect (on sockets, also on pipes and terminals: the call does
	// not say which).
	WaitNetwork WaitKind = "network"
	// WaitOther is any other call (wait4, sigtimedwait, io_uring_enter,
	// ...), a sleep outside a call, or a stopped or traced thread.
	WaitOther WaitKind = "other"
)

// WaitKinds lists the kinds in a fixed order, for tables.
var WaitKinds = []WaitKind{WaitSleep, WaitFutex, WaitDisk, WaitNetwork, WaitOther}

// Sleep classes recorded at switch-out (CLASS_* in bpf/ktrace.bpf.c).
const (
	classInterruptible   = 1
	classUninterruptible = 2
	classOther           = 3
)

// syscall is a system call's name and the kind of its waits.
type syscall struct {
	name string
	kind WaitKind
}

// syscalls names the system calls that classify waits, and common others,
// with their kind; archSyscalls adds the calls only some architectures
// have. The numbers are the build architecture's (x/sys/unix).
var syscalls = map[int]syscall{
	unix.SYS_NANOSLEEP:       {"nanosleep", WaitSleep},
	unix.SYS_CLOCK_NANOSLEEP: {"clock_nanosleep", WaitSleep},
	unix.SYS_FUTEX:           {"futex", WaitFutex},
	unix.SYS_FUTEX_WAITV:     {"futex_waitv", WaitFutex},
	unix.SYS_EPOLL_PWAIT:     {"epoll_pwait", WaitNetwork},
	unix.SYS_EPOLL_PWAIT2:    {"epoll_pwait2", WaitNetwork},
	unix.SYS_PPOLL:           {"ppoll", WaitNetwork},
	unix.SYS_PSELECT6:        {"pselect6", WaitNetwork},
	unix.SYS_READ:            {"read", WaitNetwork},
	unix.SYS_READV:           {"readv", WaitNetwork},
	unix.SYS_WRITE:           {"write", WaitNetwork},
	unix.SYS_WRITEV:          {"writev", WaitNetwork},
	unix.SYS_RECVFROM:        {"recvfrom", WaitNetwork},
	unix.SYS_RECVMSG:         {"recvmsg", WaitNetwork},
	unix.SYS_RECVMMSG:        {"recvmmsg", WaitNetwork},
	unix.SYS_SENDTO:          {"sendto", WaitNetwork},
	unix.SYS_SENDMSG:         {"sendmsg", WaitNetwork},
	unix.SYS_SENDMMSG:        {"sendmmsg", WaitNetwork},
	unix.SYS_ACCEPT4:         {"accept4", WaitNetwork},
	unix.SYS_CONNECT:         {"connect", WaitNetwork},
	unix.SYS_WAIT4:           {"wait4", WaitOther},
	unix.SYS_WAITID:          {"waitid", WaitOther},
	unix.SYS_RT_SIGTIMEDWAIT: {"rt_sigtimedwait", WaitOther},
	unix.SYS_RT_SIGSUSPEND:   {"rt_sigsuspend", WaitOther},
	unix.SYS_IO_URING_ENTER:  {"io_uring_enter", WaitOther},
	unix.SYS_IO_GETEVENTS:    {"io_getevents", WaitOther},
	unix.SYS_FSYNC:           {"fsync", WaitOther},
	unix.SYS_FLOCK:           {"flock", WaitOther},
}

// classify returns the kind of an off-CPU interval from its sleep class
// and system call number (-1: not in a call), and the call's name ("" when
// not in a call).
func classify(class uint32, nr int32) (WaitKind, string) {
	name := ""
	if nr >= 0 {
		name = fmt.Sprintf("syscall %d", nr)
		if s, ok := lookupSyscall(nr); ok {
			name = s.name
		}
	}
	switch {
	case class == classUninterruptible:
		return WaitDisk, name
	case class != classInterruptible || nr < 0:
		return WaitOther, name
	}
	if s, ok := lookupSyscall(nr); ok {
		return s.kind, name
	}
	return WaitOther, name
}

func lookupSyscall(nr int32) (syscall, bool) {
	if s, ok := syscalls[int(nr)]; ok {
		return s, true
	}
	s, ok := archSyscalls[int(nr)]
	return s, ok
}
