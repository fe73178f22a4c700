package capture

import "golang.org/x/sys/unix"

// The amd64 system calls newer architectures replaced (poll by ppoll,
// select by pselect6, epoll_wait by epoll_pwait).
func init() {
	syscallNames[unix.SYS_POLL] = "poll"
	syscallNames[unix.SYS_SELECT] = "select"
	syscallNames[unix.SYS_EPOLL_WAIT] = "epoll_wait"
	syscallNames[unix.SYS_PAUSE] = "pause"
}
