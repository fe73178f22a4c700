package session

import (
	"perflab/internal/capture"
	"perflab/internal/service"
)

// The service's settings as the command line gives them, checked before
// any run: its budget, its CPUs, the program it runs, the pid or cgroup
// it is attached by.

// Budget is the service's budget (Config.Budget); CPUSet a set of CPUs
// such as "0-3,8".
type (
	Budget = service.Budget
	CPUSet = service.CPUSet
)

// ParseCPUs parses a CPU budget in cores ("1.5").
func ParseCPUs(s string) (float64, error) { return service.ParseCPUs(s) }

// ParseMemory parses a memory budget ("512MiB").
func ParseMemory(s string) (int64, error) { return service.ParseMemory(s) }

// ParseCPUList parses a list of CPUs ("1", "0-3,8").
func ParseCPUList(s string) (CPUSet, error) { return service.ParseCPUList(s) }

// CheckProgram fails, naming it, when a command's program cannot be run:
// a name not in PATH, a path to no executable file.
func CheckProgram(prog string) error {
	_, err := service.FindProgram(prog, "")
	return err
}

// CheckCgroup fails when path is not a cgroup a run can attach to.
func CheckCgroup(path string) error { return service.CheckCgroup(path) }

// CheckPID fails when pid cannot be the service: no such process, one
// whose runtime cannot be read, or perflab itself.
func CheckPID(pid int) error {
	if _, err := service.DetectRuntime(pid); err != nil {
		return err
	}
	return service.CheckNotPerflab(pid)
}

// PerfHz are the profilers' default sampling rates (--perf-hz unset):
// perf's, async-profiler's, and py-spy's and rbspy's over a window of
// 10 s or more.
func PerfHz() (perf, asyncProfiler, spy int) {
	return capture.DefaultPerfHz, capture.DefaultAsyncProfilerHz, capture.DefaultSpyHz
}
