package ktrace

import "golang.org/x/sys/unix"

// archSyscalls are x86-64's calls that newer architectures replaced (by
// epoll_pwait, ppoll, pselect6, accept4, rt_sigsuspend).
var archSyscalls = map[int]syscall{
	unix.SYS_EPOLL_WAIT: {"epoll_wait", WaitNetwork},
	unix.SYS_POLL:       {"poll", WaitNetwork},
	unix.SYS_SELECT:     {"select", WaitNetwork},
	unix.SYS_ACCEPT:     {"accept", WaitNetwork},
	unix.SYS_PAUSE:      {"pause", WaitOther},
}
