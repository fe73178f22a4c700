package ktrace

import (
	"golang.org/x/sys/unix"

	"perflab/internal/runfmt"
)

// archSyscalls are x86-64's calls that newer architectures replaced (by
// epoll_pwait, ppoll, pselect6, accept4, rt_sigsuspend).
var archSyscalls = map[int]syscall{
	unix.SYS_EPOLL_WAIT: {"epoll_wait", runfmt.ThreadNetwork},
	unix.SYS_POLL:       {"poll", runfmt.ThreadNetwork},
	unix.SYS_SELECT:     {"select", runfmt.ThreadNetwork},
	unix.SYS_ACCEPT:     {"accept", runfmt.ThreadNetwork},
	unix.SYS_PAUSE:      {"pause", runfmt.ThreadOther},
}
