package service

import (
	"cmp"
	"slices"
	"time"
)

// MachineWindow is the machine over a window: what the host's CPUs did,
// what perflab itself used and waited, and the other processes that used
// the most CPU. Cores are CPU seconds per second of the window.
type MachineWindow struct {
	Start   time.Time
	Seconds float64
	// HostCores is how many CPUs the host has (all of them, not only
	// those perflab may use).
	HostCores int
	// ProcCores is the CPU every process used (user and system time).
	ProcCores float64
	// IRQCores is interrupt and softirq work (network packets, loopback
	// included), charged to no process.
	IRQCores    float64
	IOWaitCores float64
	StealCores  float64
	// SelfCores is perflab's CPU: its own process and the profilers it
	// started. SelfRunqueueWaitSeconds is how long its threads waited for a
	// CPU.
	SelfCores               float64
	SelfRunqueueWaitSeconds float64
	// ServiceCores is the service's process tree (SetService) as the
	// process scans saw it: the service's CPU when no Sampler measured it
	// (a run given only the service's URL).
	ServiceCores float64
	// Top are the other processes that used the most CPU, from the process
	// scans; ScanSeconds is how much of the window the scans cover (its
	// ends may lie before the first scan or after the last).
	Top         []ProcessUse
	ScanSeconds float64
	// OtherScannedCores is every other process the scans saw, summed: a
	// floor for the host's figure less the service's and perflab's, which
	// reads low where the kernel books softirq or steal time in /proc/stat
	// apart from the processes whose own times include it.
	OtherScannedCores float64
}

// ProcessUse is one process's CPU over a window.
type ProcessUse struct {
	PID   int
	Name  string
	Cores float64
}

// topProcesses is how many other processes a window names.
const topProcesses = 5

// Window summarises the machine between from and to; ok is false without
// two host samples around it.
func (m *MachineSampler) Window(from, to time.Time) (MachineWindow, bool) {
	samples := m.Samples()
	var w MachineWindow
	if len(samples) < 2 || !to.After(from) {
		return w, false
	}
	lo, hi := maxTime(from, samples[0].T), minTime(to, samples[len(samples)-1].T)
	secs := hi.Sub(lo).Seconds()
	if secs <= 0 {
		return w, false
	}
	at := func(s MachineSample) time.Time { return s.T }
	rate := func(v func(MachineSample) float64) float64 {
		return max(interpolate(samples, hi, at, v)-interpolate(samples, lo, at, v), 0) / secs
	}
	ticks := func(f func(hostCPU) int64) float64 {
		return rate(func(s MachineSample) float64 { return float64(f(s.host)) / userHZ })
	}
	w.Start, w.Seconds = lo, secs
	w.HostCores = samples[len(samples)-1].host.CPUs
	w.ProcCores = ticks(hostCPU.procBusy)
	w.IRQCores = ticks(func(h hostCPU) int64 { return h.IRQ })
	w.IOWaitCores = ticks(func(h hostCPU) int64 { return h.IOWait })
	w.StealCores = ticks(func(h hostCPU) int64 { return h.Steal })
	w.SelfCores = rate(func(s MachineSample) float64 { return s.SelfCPUSeconds })
	w.SelfRunqueueWaitSeconds = rate(func(s MachineSample) float64 { return s.SelfRunqueueWaitSeconds }) * secs
	sums := scanWindow(m.scansCopy(), lo, hi)
	w.Top, w.ScanSeconds, w.ServiceCores, w.OtherScannedCores = sums.top, sums.covered, sums.service, sums.others
	w.SelfCores += sums.helper
	return w, true
}

// scanSums is what the process scans say of a window: perflab's helpers',
// the service's and all other processes' cores, the top other processes,
// and how much of the window the scans cover (seconds).
type scanSums struct {
	helper, service, others float64
	top                     []ProcessUse
	covered                 float64
}

// scanWindow sums the scans over [from, to]: each scan's CPU is spread
// evenly over the time since the previous scan, and the part of that time
// inside the window counts.
func scanWindow(scans []procScan, from, to time.Time) scanSums {
	secs := to.Sub(from).Seconds()
	if len(scans) < 2 || secs <= 0 {
		return scanSums{}
	}
	var helper, service, others, covered float64
	use := map[procKey]*ProcessUse{}
	var order []procKey
	for i := 1; i < len(scans); i++ {
		lo, hi := scans[i-1].T, scans[i].T
		span := hi.Sub(lo).Seconds()
		inside := minTime(hi, to).Sub(maxTime(lo, from)).Seconds()
		if span <= 0 || inside <= 0 {
			continue
		}
		covered += inside
		weight := inside / span / userHZ / secs // ticks to cores of the window
		helper += float64(scans[i].helperTicks) * weight
		service += float64(scans[i].serviceTicks) * weight
		others += float64(scans[i].otherTicks) * weight
		for _, p := range scans[i].others {
			k := procKey{p.pid, p.start}
			u := use[k]
			if u == nil {
				u = &ProcessUse{PID: p.pid, Name: p.name}
				use[k] = u
				order = append(order, k)
			}
			u.Cores += float64(p.ticks) * weight
		}
	}
	top := make([]ProcessUse, 0, len(order))
	for _, k := range order {
		top = append(top, *use[k])
	}
	slices.SortStableFunc(top, func(x, y ProcessUse) int { return cmp.Compare(y.Cores, x.Cores) })
	return scanSums{helper: helper, service: service, others: others, top: top[:min(len(top), topProcesses)], covered: covered}
}
