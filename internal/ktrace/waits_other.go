//go:build !amd64

package ktrace

// archSyscalls: architectures other than x86-64 have only the calls in
// syscalls.
var archSyscalls = map[int]syscall{}
