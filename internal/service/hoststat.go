package service

import (
	"bytes"
	"fmt"
	"strconv"
)

// hostCPU is the first line of /proc/stat: the CPU time of the whole host,
// summed over its CPUs, in clock ticks (USER_HZ) since boot.
type hostCPU struct {
	// User includes nice (and guest time, which the kernel counts in user).
	User, System int64
	// IRQ includes softirq: interrupt work not charged to any process.
	IRQ    int64
	Idle   int64
	IOWait int64
	// Steal is time a virtual CPU was runnable but the hypervisor ran
	// something else.
	Steal int64
	// CPUs is how many per-CPU lines follow: the CPUs the totals cover.
	CPUs int
}

// maxTicks bounds a /proc/stat field: far beyond any uptime (10^16 years
// at 100 Hz), and small enough that the sums of two fields (user and nice,
// irq and softirq) cannot overflow.
const maxTicks = 1 << 61

// procBusy is the CPU the host's processes used (user and system): the
// figure the service's and perflab's CPU are subtracted from.
func (h hostCPU) procBusy() int64 { return h.User + h.System }

// statCPU labels /proc/stat's lines of CPU time: "cpu" for the total,
// "cpuN" for each CPU.
const statCPU = "cpu"

// parseHostStat parses the "cpu  user nice system idle iowait irq softirq
// steal ..." line that opens /proc/stat. Kernels before 2.6.11 lack steal;
// the fields they lack read 0.
func parseHostStat(b []byte) (hostCPU, error) {
	var h hostCPU
	line, _, _ := bytes.Cut(b, []byte{'\n'})
	f := bytes.Fields(line)
	if len(f) < 5 || string(f[0]) != statCPU {
		return h, fmt.Errorf("parsing /proc/stat: first line %q is not the \"cpu ...\" total", truncate(line, 60))
	}
	var v [8]int64
	for i := 1; i < len(f) && i <= len(v); i++ {
		n, err := strconv.ParseInt(string(f[i]), 10, 64)
		if err != nil || n < 0 || n > maxTicks {
			return h, fmt.Errorf("parsing /proc/stat: field %d is %q, want a tick count", i, truncate(f[i], 30))
		}
		v[i-1] = n
	}
	h.User, h.System, h.Idle, h.IOWait = v[0]+v[1], v[2], v[3], v[4]
	h.IRQ, h.Steal = v[5]+v[6], v[7]
	for rest := b; len(rest) > 0; {
		line, rest, _ = bytes.Cut(rest, []byte{'\n'})
		if len(line) > 3 && string(line[:3]) == statCPU && line[3] >= '0' && line[3] <= '9' {
			h.CPUs++
		}
	}
	return h, nil
}
