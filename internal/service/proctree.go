package service

import (
	"bytes"
	"encoding/binary"
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// procWalker finds a process and its descendants. It reads the children
// files of /proc/PID/task/TID (every thread: a Go service forks from any
// thread), and scans all of /proc when the kernel lacks them
// (CONFIG_PROC_CHILDREN). Buffers are reused between walks; procfs's
// AllProcs and Proc.Stat allocate per process and per file, which the
// sampler avoids.
type procWalker struct {
	r     fileReader
	dents []byte
	tids  []int
	path  []byte
	stat  []byte
}

var (
	childrenOnce sync.Once
	childrenOK   bool
)

func haveChildrenFiles() bool {
	childrenOnce.Do(func() {
		_, err := os.Stat("/proc/self/task/" + strconv.Itoa(unix.Gettid()) + "/children")
		childrenOK = err == nil
	})
	return childrenOK
}

// tree appends root and its descendants to dst. A root that is gone gives
// nothing.
func (w *procWalker) tree(root int, dst []int) []int {
	if !pidAlive(root) {
		return dst
	}
	start := len(dst)
	dst = append(dst, root)
	if !haveChildrenFiles() {
		return w.scanTree(root, dst)
	}
	for i := start; i < len(dst) && len(dst) < 1<<16; i++ {
		dst = w.children(dst[i], dst)
	}
	return dst
}

// children appends the children of pid, over all its threads.
func (w *procWalker) children(pid int, dst []int) []int {
	w.path = append(append(w.path[:0], "/proc/"...), strconv.Itoa(pid)...)
	w.path = append(w.path, "/task"...)
	w.tids = w.listDir(string(w.path), w.tids[:0])
	base := len(w.path)
	for _, tid := range w.tids {
		w.path = strconv.AppendInt(append(w.path[:base], '/'), int64(tid), 10)
		w.path = append(w.path, "/children"...)
		b, err := w.r.read(string(w.path))
		if err != nil {
			continue
		}
		for _, f := range bytes.Fields(b) {
			if v, err := atoi(f); err == nil && v > 0 {
				dst = append(dst, int(v))
			}
		}
	}
	return dst
}

// scanTree finds descendants by reading the parent of every process.
func (w *procWalker) scanTree(root int, dst []int) []int {
	all := w.listDir("/proc", nil)
	parent := make(map[int]int, len(all))
	for _, pid := range all {
		w.stat = statPath(w.stat, pid)
		b, err := w.r.read(string(w.stat))
		if err != nil {
			continue
		}
		if s, err := parseProcStat(b); err == nil {
			parent[pid] = s.PPID
		}
	}
	in := map[int]bool{root: true}
	for changed := true; changed; {
		changed = false
		for pid, pp := range parent {
			if in[pp] && !in[pid] {
				in[pid] = true
				dst = append(dst, pid)
				changed = true
			}
		}
	}
	return dst
}

// listDir appends the numeric entries of dir, read with getdents into a
// reused buffer (os.ReadDir allocates a string and a DirEntry per entry).
func (w *procWalker) listDir(dir string, dst []int) []int {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return dst
	}
	defer unix.Close(fd)
	if w.dents == nil {
		w.dents = make([]byte, 8192)
	}
	for {
		n, err := unix.Getdents(fd, w.dents)
		if err != nil || n <= 0 {
			return dst
		}
		dst = appendNumericDirents(dst, w.dents[:n])
	}
}

// appendNumericDirents parses linux_dirent64 records (ino u64, off s64,
// reclen u16, type u8, NUL-terminated name) and appends numeric names.
func appendNumericDirents(dst []int, b []byte) []int {
	for len(b) >= 19 {
		reclen := int(binary.NativeEndian.Uint16(b[16:18]))
		if reclen < 19 || reclen > len(b) {
			return dst
		}
		name := b[19:reclen]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if v, err := atoi(name); err == nil && v > 0 && name[0] != '-' {
			dst = append(dst, int(v))
		}
		b = b[reclen:]
	}
	return dst
}

// pidAlive says whether pid exists (a zombie counts until reaped).
func pidAlive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || err == unix.EPERM
}
