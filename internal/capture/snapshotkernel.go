package capture

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"perflab/internal/files"
	"perflab/internal/runfmt"
)

// KernelThread is the kernel's view of one thread, read from
// /proc/PID/task/TID: what any runtime's thread is doing, even one no
// language tool can read.
type KernelThread struct {
	TID int
	// Comm is the thread's name.
	Comm string
	// State is the scheduler's state with its meaning: "S (sleeping)",
	// "R (running)", "D (disk sleep)".
	State string
	// Wchan is the kernel function the thread sleeps in ("sk_wait_data",
	// "futex_wait_queue", "do_epoll_wait"); "" when it runs.
	Wchan string
	// Syscall is the system call the thread is in ("recvfrom", "futex",
	// "syscall 999" for one perflab does not name); "" when it runs in
	// user space or the kernel would not say.
	Syscall string
	// FD is the file descriptor the system call works on, or -1.
	FD int
	// Inode is that descriptor's socket inode, 0 when it is no socket:
	// the key of the kernel's socket tables, which name its peer.
	Inode uint64
	// Peer is the remote address of that socket ("127.0.0.1:9999"), set
	// by whoever reads the socket tables.
	Peer string
	// Stack is the thread's kernel stack, innermost first (its
	// functions, from /proc/PID/task/TID/stack: root only).
	Stack []string
}

// Bounds of a read of one thread's /proc files: each holds one line but a
// kernel stack.
const (
	maxProcLineBytes  = 4 << 10
	maxProcStackBytes = 16 << 10
)

// KernelThreads reads the kernel's view of each thread of pid (at most
// 100,000 threads). A thread that exits meanwhile is left out; files the
// kernel does not let perflab read (stack, syscall without ptrace rights)
// leave their fields empty.
func KernelThreads(pid int) ([]KernelThread, error) {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "task")
	ents, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("process %d: %w", pid, ErrProcessGone)
		}
		return nil, fmt.Errorf("reading the threads of process %d: %w", pid, err)
	}
	var out []KernelThread
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil || len(out) >= maxSnapshotThreads {
			continue
		}
		if t, ok := kernelThread(pid, tid); ok {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("process %d: %w", pid, ErrProcessGone)
	}
	return out, nil
}

// kernelThread reads one thread's files; false when it is gone.
func kernelThread(pid, tid int) (KernelThread, bool) {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "task", strconv.Itoa(tid))
	stat, err := files.ReadFile(filepath.Join(dir, "stat"), maxProcLineBytes)
	if err != nil {
		return KernelThread{}, false
	}
	t := KernelThread{TID: tid, FD: -1}
	t.Comm, t.State = parseTaskStat(stat)
	if b, err := files.ReadFile(filepath.Join(dir, "wchan"), maxProcLineBytes); err == nil && string(b) != "0" {
		t.Wchan = strings.TrimSpace(string(b))
	}
	if b, err := files.ReadFile(filepath.Join(dir, "syscall"), maxProcLineBytes); err == nil {
		t.Syscall, t.FD = parseTaskSyscall(string(b))
	}
	if t.FD >= 0 {
		t.Inode = socketInode(pid, t.FD)
	}
	if b, err := files.ReadFile(filepath.Join(dir, "stack"), maxProcStackBytes); err == nil {
		t.Stack = parseKernelStack(string(b))
	}
	return t, true
}

// taskStates name the scheduler's states (fs/proc/array.c).
var taskStates = map[string]string{
	"R": "R (running)", "S": "S (sleeping)", "D": "D (disk sleep)", "T": "T (stopped)",
	"t": "t (tracing stop)", "Z": "Z (zombie)", "X": "X (dead)", "I": "I (idle)",
}

// parseTaskStat reads the name and state of /proc/PID/task/TID/stat:
// "1234 (python3) S 1 ...". The name may hold spaces and parentheses; the
// last ")" ends it.
func parseTaskStat(b []byte) (comm, state string) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return "", ""
	}
	comm = string(b[open+1 : end])
	fields := strings.Fields(string(b[end+1:]))
	if len(fields) == 0 {
		return comm, ""
	}
	if s, ok := taskStates[fields[0]]; ok {
		return comm, s
	}
	return comm, fields[0]
}

// parseTaskSyscall reads /proc/PID/task/TID/syscall: "45 0x5 0x7f… …"
// (the call's number and arguments), "running", or "-1 …" (blocked
// outside a system call).
func parseTaskSyscall(s string) (name string, fd int) {
	fields := strings.Fields(s)
	if len(fields) == 0 || fields[0] == "running" {
		return "", -1
	}
	n, err := strconv.Atoi(fields[0])
	if err != nil || n < 0 {
		return "", -1
	}
	name, ok := syscallNames[n]
	if !ok {
		return "syscall " + strconv.Itoa(n), -1
	}
	if fdSyscalls[name] && len(fields) > 1 {
		if v, err := strconv.ParseUint(strings.TrimPrefix(fields[1], "0x"), 16, 31); err == nil {
			return name, int(v)
		}
	}
	return name, -1
}

// socketInode is the inode of pid's descriptor fd when it is a socket
// ("socket:[35021]"), else 0.
func socketInode(pid, fd int) uint64 {
	link, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "fd", strconv.Itoa(fd)))
	if err != nil {
		return 0
	}
	inode, ok := strings.CutPrefix(link, "socket:[")
	if !ok {
		return 0
	}
	n, _ := strconv.ParseUint(strings.TrimSuffix(inode, "]"), 10, 64)
	return n
}

// parseKernelStack reads /proc/PID/task/TID/stack:
// "[<0>] sk_wait_data+0x172/0x190" per line, innermost first.
func parseKernelStack(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if _, fn, ok := strings.Cut(line, "] "); ok && len(out) < maxThreadFrames {
			fn, _, _ = strings.Cut(fn, "+")
			out = append(out, strings.TrimSpace(fn))
		}
	}
	return out
}

// KernelSnapshot is a snapshot of pid made of the kernel's view of its
// threads (kt, from KernelThreads) alone, for a process no language tool
// reads (native code, node, a Go service without a pprof endpoint) or
// whose tool failed: each thread's frames are its kernel stack, or the
// function it sleeps in when the stack cannot be read.
func KernelSnapshot(pid int, kt []KernelThread) *Snapshot {
	s := &Snapshot{PID: pid, Source: runfmt.StackSourceKernel}
	for i := range kt {
		k := &kt[i]
		t := Thread{ID: int64(k.TID), TID: k.TID, Name: k.Comm, State: k.State, Kernel: k}
		stack := k.Stack
		if len(stack) == 0 && k.Wchan != "" {
			stack = []string{k.Wchan}
		}
		for _, fn := range stack {
			t.Frames = append(t.Frames, Frame{Function: fn, File: "[kernel]"})
		}
		s.add(t)
	}
	return s
}
