package ktrace

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"golang.org/x/sys/unix"

	"perflab/internal/files"
)

// A program at one system call's own tracepoint (syscalls:sys_exit_NAME)
// runs on that call's return alone, where a raw sys_exit program runs on
// every call's return of the machine. Such a tracepoint is reached
// through a perf event whose id tracefs gives.

// attachSyscallExit attaches prog at syscalls:sys_exit_<call>, for every
// process of the machine.
func attachSyscallExit(prog *ebpf.Program, call string) (link.Link, error) {
	event := "sys_exit_" + call
	id, err := eventID("syscalls", event)
	if err != nil {
		return nil, err
	}
	attr := unix.PerfEventAttr{Type: unix.PERF_TYPE_TRACEPOINT, Config: id, Sample_type: unix.PERF_SAMPLE_RAW, Sample: 1, Wakeup: 1}
	attr.Size = uint32(unsafe.Sizeof(attr))
	// A tracepoint's programs run on every CPU whichever CPU its event
	// is opened on.
	fd, err := unix.PerfEventOpen(&attr, -1, 0, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("perf_event_open syscalls:%s: %w", event, err)
	}
	// The link holds the event from its creation on.
	defer unix.Close(fd)
	l, err := link.AttachRawLink(link.RawLinkOptions{Target: fd, Program: prog, Attach: ebpf.AttachPerfEvent})
	if err != nil {
		return nil, fmt.Errorf("attaching at syscalls:%s: %w", event, err)
	}
	return l, nil
}

// tracefsDirs are where tracefs is mounted, when it is (a test replaces
// them).
var tracefsDirs = files.TracefsDirs

// noDetachedTracefs keeps eventID from mounting a tracefs of its own (a
// test's way to a kernel without one).
var noDetachedTracefs bool

// eventID returns the id of tracepoint group:name from tracefs: the one
// mounted, or, where none is, one mounted for this read alone and
// attached nowhere (the kernel's new mount interface, 5.2 on), so that
// the machine's mounts stay as they were.
func eventID(group, name string) (uint64, error) {
	rel := filepath.Join("events", group, name, "id")
	for _, dir := range tracefsDirs {
		if b, err := files.ReadFile(filepath.Join(dir, rel), 32); err == nil {
			return parseEventID(b)
		}
	}
	if noDetachedTracefs {
		return 0, fmt.Errorf("tracepoint %s:%s: tracefs is not mounted", group, name)
	}
	id, err := detachedEventID(rel)
	if err != nil {
		return 0, fmt.Errorf("tracepoint %s:%s: tracefs is not mounted, and mounting it failed: %w", group, name, err)
	}
	return id, nil
}

// detachedEventID reads rel in a tracefs mounted nowhere, through its
// mount's file descriptor; the mount ends when the descriptor is closed.
func detachedEventID(rel string) (uint64, error) {
	fs, err := unix.Fsopen("tracefs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return 0, fmt.Errorf("fsopen: %w", err)
	}
	defer unix.Close(fs)
	if err := unix.FsconfigCreate(fs); err != nil {
		return 0, fmt.Errorf("fsconfig: %w", err)
	}
	mnt, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		return 0, fmt.Errorf("fsmount: %w", err)
	}
	defer unix.Close(mnt)
	b, err := files.ReadFile(fmt.Sprintf("/proc/self/fd/%d/%s", mnt, rel), 32)
	if err != nil {
		return 0, err
	}
	return parseEventID(b)
}

// parseEventID parses a tracepoint's id file: a number and a newline.
func parseEventID(b []byte) (uint64, error) {
	id, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 32)
	if err != nil {
		return 0, fmt.Errorf("tracepoint id %q: want a number", b)
	}
	return id, nil
}
