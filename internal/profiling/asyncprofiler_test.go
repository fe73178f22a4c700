package profiling

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/labtest"
)

// TestLibraryPaths: async-profiler's library names ("libc.so.6") become
// the paths the process maps them from, as perf names them, in the
// mappings and the functions' files; a name the process does not map,
// and a Java method's empty file, stay as they are.
func TestLibraryPaths(t *testing.T) {
	sleep := labtest.NeedTool(t, "sleep", "")
	cmd := exec.Command(sleep, "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	// Wait (bounded) until the dynamic loader has mapped the C library.
	maps := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/maps"
	if !labtest.Until(10*time.Second, func() bool {
		b, _ := os.ReadFile(maps)
		return strings.Contains(string(b), "/libc.so.6")
	}) {
		t.Skip("sleep maps no libc.so.6 (a static build)")
	}
	libc := &profile.Mapping{ID: 1, File: "libc.so.6"}
	other := &profile.Mapping{ID: 2, File: "libnotmapped.so"}
	kernel := &profile.Mapping{ID: 3, File: "[kernel.kallsyms]"}
	p := &profile.Profile{
		Mapping: []*profile.Mapping{libc, other, kernel},
		Function: []*profile.Function{
			{ID: 1, Name: "memcpy", Filename: "libc.so.6"},
			{ID: 2, Name: "Server.summarize"},
		},
	}
	libraryPaths(p, cmd.Process.Pid)
	if !strings.HasPrefix(libc.File, "/") || !strings.HasSuffix(libc.File, "/libc.so.6") || p.Function[0].Filename != libc.File {
		t.Errorf("libc.so.6 named %q (function's file %q), want its path", libc.File, p.Function[0].Filename)
	}
	if other.File != "libnotmapped.so" || kernel.File != "[kernel.kallsyms]" || p.Function[1].Filename != "" {
		t.Errorf("names the process does not map changed: %q, %q, %q", other.File, kernel.File, p.Function[1].Filename)
	}
}
