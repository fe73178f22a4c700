package service

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// CPUSet is a set of CPU numbers, sorted, as in the kernel's list format
// "0-3,8" (cpuset.cpus, taskset -c).
type CPUSet []int

// maxCPU bounds the CPU numbers a list may name (the kernel's own limit
// is NR_CPUS, at most 8192).
const maxCPU = 8191

// ParseCPUList parses "0-3,8". It must name at least one CPU; ranges run
// low to high.
func ParseCPUList(s string) (CPUSet, error) {
	var out CPUSet
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("%q: want a CPU list like 1 or 0-3,8", s)
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a || b > maxCPU {
			return nil, fmt.Errorf("%q: %q is not a CPU number or a low-high range", s, part)
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// String renders the set in list format ("0-3,8").
func (c CPUSet) String() string {
	var parts []string
	for i := 0; i < len(c); {
		j := i
		for j+1 < len(c) && c[j+1] == c[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(c[i]))
		} else {
			parts = append(parts, strconv.Itoa(c[i])+"-"+strconv.Itoa(c[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// Intersect returns the CPUs in both sets.
func (c CPUSet) Intersect(o CPUSet) CPUSet {
	var out CPUSet
	for _, x := range c {
		if slices.Contains(o, x) {
			out = append(out, x)
		}
	}
	return out
}

func (c CPUSet) unix() unix.CPUSet {
	var s unix.CPUSet
	for _, x := range c {
		s.Set(x)
	}
	return s
}

func fromUnix(s *unix.CPUSet) CPUSet {
	var out CPUSet
	for c := 0; c < len(s)*64 && len(out) < s.Count(); c++ {
		if s.IsSet(c) {
			out = append(out, c)
		}
	}
	return out
}

// UsableCPUs are the CPUs perflab may place work on: the host's online
// CPUs that its own affinity allows (a container or taskset may narrow
// them).
func UsableCPUs() (CPUSet, error) {
	online := CPUSet(nil)
	if b, err := os.ReadFile("/sys/devices/system/cpu/online"); err == nil {
		online, _ = ParseCPUList(string(b))
	}
	var mine unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mine); err != nil {
		return nil, fmt.Errorf("reading perflab's CPU affinity: %w", err)
	}
	allowed := fromUnix(&mine)
	if len(online) == 0 {
		return allowed, nil
	}
	return allowed.Intersect(online), nil
}

// CheckUsable fails naming the CPUs of c that perflab cannot use.
func (c CPUSet) CheckUsable() error {
	usable, err := UsableCPUs()
	if err != nil {
		return err
	}
	var missing CPUSet
	for _, x := range c {
		if !slices.Contains(usable, x) {
			missing = append(missing, x)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("CPU %s does not exist or is not available to perflab here (usable: %s)", missing, usable)
	}
	return nil
}

// startPinned runs start (which forks the service) on a thread whose
// affinity is cpus, so the service and every thread and process it
// creates inherit it; the thread's affinity is restored after. An empty
// set starts as is.
func startPinned(cpus CPUSet, start func() error) error {
	if len(cpus) == 0 {
		return start()
	}
	runtime.LockOSThread()
	// The thread must not end while locked (the service's Pdeathsig is tied
	// to it): it is unlocked after its affinity is restored.
	defer runtime.UnlockOSThread()
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return fmt.Errorf("reading the CPU affinity: %w", err)
	}
	set := cpus.unix()
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("setting the CPU affinity to %s: %w", cpus, err)
	}
	// The thread goes back to perflab's affinity; should that fail, it
	// keeps the service's CPUs, which starts nothing wrong.
	defer func() { _ = unix.SchedSetaffinity(0, &old) }()
	return start()
}

// PinSelf confines every thread of perflab (the load generator, samplers,
// and the profilers it starts later) to cpus, and returns the function
// that gives each thread its affinity back. Threads the Go runtime creates
// afterwards inherit the affinity of the thread that creates them.
func PinSelf(cpus CPUSet) (restore func(), err error) {
	if len(cpus) == 0 {
		return func() {}, nil
	}
	var orig unix.CPUSet
	if err := unix.SchedGetaffinity(0, &orig); err != nil {
		return func() {}, fmt.Errorf("reading perflab's CPU affinity: %w", err)
	}
	saved := map[int]unix.CPUSet{}
	set := cpus.unix()
	var w procWalker
	// Twice: a thread started during the first pass by a thread not yet
	// pinned is caught by the second.
	for range 2 {
		for _, tid := range w.listDir("/proc/self/task", nil) {
			if _, done := saved[tid]; done {
				continue
			}
			var cur unix.CPUSet
			if unix.SchedGetaffinity(tid, &cur) != nil {
				continue
			}
			if err := unix.SchedSetaffinity(tid, &set); err != nil {
				restoreThreads(saved, orig)
				return func() {}, fmt.Errorf("pinning perflab's thread %d to CPUs %s: %w", tid, cpus, err)
			}
			saved[tid] = cur
		}
	}
	return func() { restoreThreads(saved, orig) }, nil
}

// restoreThreads gives perflab's threads their saved affinity, and those
// created since the process's original one.
func restoreThreads(saved map[int]unix.CPUSet, orig unix.CPUSet) {
	var w procWalker
	for _, tid := range w.listDir("/proc/self/task", nil) {
		set, ok := saved[tid]
		if !ok {
			set = orig
		}
		_ = unix.SchedSetaffinity(tid, &set)
	}
}
