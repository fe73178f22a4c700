package service

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Budget is the CPU and memory a launched service may use.
type Budget struct {
	// CPUs is the CPU quota in cores, fractional (0.5, 2); 0 means no limit.
	CPUs float64
	// MemoryBytes is the memory limit; 0 means no limit.
	MemoryBytes int64
	// CPUSet confines the service to these CPUs (cgroup cpuset, else CPU
	// affinity); empty means any.
	CPUSet CPUSet
}

// none says the budget sets nothing.
func (b Budget) none() bool { return b.CPUs == 0 && b.MemoryBytes == 0 && len(b.CPUSet) == 0 }

// minMemory is the smallest memory budget accepted: below it the service is
// OOM-killed at start, and a value this small is usually a missing unit.
const minMemory = 4 << 20

// MinCPUs is the smallest CPU budget a cgroup enforces: the kernel's
// smallest CFS quota (1 ms) in perflab's period of 100 ms. A smaller
// quota is raised to it, so the service would get more than asked.
const MinCPUs = 0.01

// Validate checks the budget against this host.
func (b Budget) Validate() error {
	host := runtime.NumCPU()
	if math.IsNaN(b.CPUs) || b.CPUs < 0 || b.CPUs > float64(host) {
		return fmt.Errorf("--cpus must be > 0 and <= %d cores (got %g)", host, b.CPUs)
	}
	if b.CPUs > 0 && b.CPUs < MinCPUs {
		return fmt.Errorf("--cpus %g is below the cgroup minimum of %g cores (the kernel's smallest CPU quota, 1 ms per 100 ms period)", b.CPUs, MinCPUs)
	}
	if b.MemoryBytes < 0 {
		return fmt.Errorf("--memory must be > 0 (got %d)", b.MemoryBytes)
	}
	if b.MemoryBytes > 0 && b.MemoryBytes < minMemory {
		return fmt.Errorf("--memory must be at least 4MiB (got %d bytes; did you mean %dM?)", b.MemoryBytes, b.MemoryBytes)
	}
	if total := hostMemory(); total > 0 && b.MemoryBytes > total {
		return fmt.Errorf("--memory %s is more than this machine's memory (%s): a budget above it limits nothing", FormatMemory(b.MemoryBytes), FormatMemory(total))
	}
	if len(b.CPUSet) > 0 {
		if err := b.CPUSet.CheckUsable(); err != nil {
			return fmt.Errorf("--service-cpus %s: %w", b.CPUSet, err)
		}
		if b.CPUs > float64(len(b.CPUSet)) {
			return fmt.Errorf("--cpus %g is more than the %d CPU(s) of --service-cpus %s", b.CPUs, len(b.CPUSet), b.CPUSet)
		}
	}
	return nil
}

// hostMemory is the machine's memory in bytes (0: unknown).
func hostMemory() int64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}

// String renders the budget as flags ("--cpus 0.5 --memory 512MiB").
func (b Budget) String() string {
	var parts []string
	if b.CPUs > 0 {
		parts = append(parts, "--cpus "+strconv.FormatFloat(b.CPUs, 'g', -1, 64))
	}
	if b.MemoryBytes > 0 {
		parts = append(parts, "--memory "+FormatMemory(b.MemoryBytes))
	}
	if len(b.CPUSet) > 0 {
		parts = append(parts, "--service-cpus "+b.CPUSet.String())
	}
	if len(parts) == 0 {
		return "no budget"
	}
	return strings.Join(parts, " ")
}

// ParseCPUs parses a CPU budget in cores: "0.5", "2", or Kubernetes-style
// millicores "500m". It must be a finite number > 0; the host bound is
// checked by [Budget.Validate].
func ParseCPUs(s string) (float64, error) {
	t := strings.TrimSpace(s)
	scale := 1.0
	if strings.HasSuffix(t, "m") {
		t, scale = strings.TrimSuffix(t, "m"), 1000
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return 0, fmt.Errorf("parsing --cpus %q: want a number of cores > 0 such as 0.5, 2 or 500m", s)
	}
	return v / scale, nil
}

// memUnits maps a unit letter to its multiple. Like docker's --memory, k, m,
// g and t are binary multiples whether written K, KB, KiB or k.
var memUnits = map[string]int64{"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}

// ParseMemory parses a memory budget: a byte count ("1073741824") or a
// number with a binary unit ("512M", "1G", "256MiB", "1.5g", "64KB").
func ParseMemory(s string) (int64, error) {
	bad := func() (int64, error) {
		return 0, fmt.Errorf("parsing --memory %q: want bytes > 0 such as 1073741824, 512M, 1G or 256MiB", s)
	}
	t := strings.ToLower(strings.TrimSpace(s))
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') && t[i-1] != '.' {
		i--
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	if len(unit) > 1 && unit != "b" {
		switch unit[1:] {
		case "b", "ib":
			unit = unit[:1]
		default:
			return bad()
		}
	}
	mul, ok := memUnits[unit]
	if !ok || num == "" || strings.ContainsAny(num, "+-eExXpP_") {
		return bad()
	}
	if n, err := strconv.ParseInt(num, 10, 64); err == nil {
		if n <= 0 || n > math.MaxInt64/mul {
			return bad()
		}
		return n * mul, nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || !(f > 0) || f*float64(mul) >= math.MaxInt64 {
		return bad()
	}
	v := int64(f * float64(mul))
	if v <= 0 {
		return bad()
	}
	return v, nil
}

// FormatMemory renders bytes with the largest binary unit that keeps one
// decimal ("512MiB", "1.5GiB").
func FormatMemory(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	f, u := float64(n), 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	return strconv.FormatFloat(math.Round(f*10)/10, 'f', -1, 64) + units[u]
}
