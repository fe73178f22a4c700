package analysis

import (
	"slices"
	"strings"
)

// spinLeaves are how the Go runtime passes time on a CPU while it waits:
// a loop of PAUSE instructions, sched_yield, a sleep of microseconds,
// and the clock reads of a loop that times its wait.
var spinLeaves = []string{
	"runtime.procyield", "runtime.procyieldAsm", "runtime.osyield", "runtime.osyield_no_g",
	"runtime.usleep", "runtime.usleep_no_g", "runtime.nanotime", "runtime.nanotime1", "runtime.cputicks",
}

// spinners are the Go runtime's loops that wait on a CPU for another
// thread: suspendG until a goroutine stops to have its stack scanned or
// to be preempted, casgstatus until the scan of a goroutine's stack ends,
// lock2 until a runtime lock's holder lets it go, unlock2 until its
// compare-and-swap on a lock word others spin on succeeds, and runqgrab
// until a P about to run a goroutine has run it. The thread they
// wait for is running, or, on a machine with more runnable threads than
// cores, waiting for a CPU itself; then a spin lasts for the scheduler's
// time slice, and its CPU is the machine's crowding, not the work it
// waits for.
var spinners = []string{"runtime.suspendG", "runtime.casgstatus", "runtime.lock2", "runtime.unlock2", "runtime.runqgrab"}

// spinAtomics is the package of the atomic operations the spinners'
// loops inline: a sample on one of them is on the loop.
const spinAtomics = "internal/runtime/atomic."

// spinnerOf is the spinner whose wait a stack (function names, leaf
// first) is, "" when none: past the spinning leaves and inlined
// atomics, the first function is a spinner.
func spinnerOf(names func(i int) string, n int) string {
	for i := range n {
		name := names(i)
		if slices.Contains(spinLeaves, name) || strings.HasPrefix(name, spinAtomics) {
			continue
		}
		if slices.Contains(spinners, name) {
			return name
		}
		return ""
	}
	return ""
}

// SpinShares is the fraction of the profile's CPU (measured, when it was)
// that the runtime spent spinning while it waited for another thread, by
// spinner (runtime.suspendG, ...), perflab's measuring left out; empty
// without samples or spins.
func (v *CPUView) SpinShares() map[string]float64 {
	out := map[string]float64{}
	if v.Costs == nil {
		return out
	}
	s := v.Costs.set
	for si := 0; si < s.NumStacks(); si++ {
		if name := v.spinnerAt(si); name != "" && !v.Costs.IsMeasuring(si) {
			out[name] += v.Share(s.Value(si, v.Costs.vi))
		}
	}
	return out
}

// spinnerAt is the spinner whose wait stack si is, "" when none.
func (v *CPUView) spinnerAt(si int) string {
	s := v.Costs.set
	st := s.Stack(si)
	return spinnerOf(func(i int) string { return s.Funcs[st[i]].Name }, len(st))
}
