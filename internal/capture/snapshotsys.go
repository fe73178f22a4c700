package capture

import "golang.org/x/sys/unix"

// syscallNames name the system calls a thread of a hung service waits in
// (the number in /proc/PID/task/TID/syscall is the architecture's own;
// the table adds the calls only some architectures have).
var syscallNames = map[int]string{
	unix.SYS_READ: "read", unix.SYS_READV: "readv", unix.SYS_PREAD64: "pread64",
	unix.SYS_RECVFROM: "recvfrom", unix.SYS_RECVMSG: "recvmsg", unix.SYS_RECVMMSG: "recvmmsg",
	unix.SYS_WRITE: "write", unix.SYS_WRITEV: "writev", unix.SYS_PWRITE64: "pwrite64",
	unix.SYS_SENDTO: "sendto", unix.SYS_SENDMSG: "sendmsg",
	unix.SYS_ACCEPT: "accept", unix.SYS_ACCEPT4: "accept4", unix.SYS_CONNECT: "connect",
	unix.SYS_FUTEX: "futex", unix.SYS_EPOLL_PWAIT: "epoll_pwait", unix.SYS_PPOLL: "ppoll",
	unix.SYS_PSELECT6: "pselect6", unix.SYS_NANOSLEEP: "nanosleep", unix.SYS_CLOCK_NANOSLEEP: "clock_nanosleep",
	unix.SYS_WAIT4: "wait4", unix.SYS_WAITID: "waitid", unix.SYS_FLOCK: "flock", unix.SYS_FCNTL: "fcntl",
	unix.SYS_FSYNC: "fsync", unix.SYS_FDATASYNC: "fdatasync", unix.SYS_OPENAT: "openat",
	unix.SYS_IO_GETEVENTS: "io_getevents", unix.SYS_IO_URING_ENTER: "io_uring_enter",
	unix.SYS_RT_SIGTIMEDWAIT: "rt_sigtimedwait", unix.SYS_RT_SIGSUSPEND: "rt_sigsuspend",
	unix.SYS_SEMTIMEDOP: "semtimedop", unix.SYS_MSGRCV: "msgrcv",
	// A timed wait (poll, a sleep) interrupted by a stop (a debugger's,
	// a profiler's pause) goes on in restart_syscall.
	unix.SYS_RESTART_SYSCALL: "restart_syscall",
}

// fdSyscalls take the file descriptor they work on as their first
// argument: the one whose socket names the peer.
var fdSyscalls = map[string]bool{
	"read": true, "readv": true, "pread64": true, "recvfrom": true, "recvmsg": true, "recvmmsg": true,
	"write": true, "writev": true, "pwrite64": true, "sendto": true, "sendmsg": true,
	"accept": true, "accept4": true, "connect": true, "flock": true, "fsync": true, "fdatasync": true,
}
