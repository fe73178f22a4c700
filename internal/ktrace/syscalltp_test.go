package ktrace

import (
	"os"
	"testing"

	"perflab/internal/labtest"
)

// withoutTracefs makes the session find no tracefs mounted, nor mount
// one, until the test ends: a kernel without system call tracepoints.
func withoutTracefs(t testing.TB) {
	saved := tracefsDirs
	tracefsDirs = []string{t.TempDir()}
	noDetachedTracefs = true
	t.Cleanup(func() { tracefsDirs, noDetachedTracefs = saved, false })
}

// needSyscallTracepoints skips a test on a kernel whose accept calls'
// tracepoints cannot be found (built without system call tracepoints, or
// tracefs neither mounted nor mountable here).
func needSyscallTracepoints(t testing.TB) {
	if _, err := eventID("syscalls", "sys_exit_accept4"); err != nil {
		t.Skip(labtest.SkipMessage(labtest.SkipHost, "syscall-tracepoints", err.Error()))
	}
}

// Where tracefs is not mounted, the id is read from one mounted for the
// read alone: the machine's mounts are as they were.
func TestEventIDMountsNothing(t *testing.T) {
	labtest.RequireRoot(t, "mounting tracefs")
	saved := tracefsDirs
	tracefsDirs = []string{t.TempDir()}
	t.Cleanup(func() { tracefsDirs = saved })
	needSyscallTracepoints(t)
	before, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	id, err := eventID("syscalls", "sys_exit_accept4")
	if err != nil {
		t.Fatal(err)
	}
	if id == 0 {
		t.Error("tracepoint id 0")
	}
	after, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) {
		t.Errorf("mounts changed:\nbefore\n%s\nafter\n%s", before, after)
	}
	if _, err := eventID("syscalls", "sys_exit_nonesuch"); err == nil {
		t.Error("a tracepoint that does not exist has an id")
	}
}

func TestParseEventID(t *testing.T) {
	for in, want := range map[string]uint64{"2233\n": 2233, "7": 7} {
		if got, err := parseEventID([]byte(in)); err != nil || got != want {
			t.Errorf("parseEventID(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x\n", "-1\n", "99999999999\n"} {
		if _, err := parseEventID([]byte(in)); err == nil {
			t.Errorf("parseEventID(%q): no error", in)
		}
	}
}
