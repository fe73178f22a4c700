package runfmt

import (
	"slices"
	"time"
)

// Measurement verdicts of a Quality.
const (
	QualityClean = "clean"
	QualityNoisy = "noisy"
)

// Quality is the machine during the measured window: whether the service
// and the load generator had the CPUs to themselves, and so which figures
// of the run can be trusted. Cores are CPU seconds per second of the window.
type Quality struct {
	// Verdict is "clean" or "noisy".
	Verdict string `json:"verdict"`
	// Causes say what made the measurement noisy, each shown with the
	// figures below; empty for a clean one.
	Causes []NoiseCause `json:"causes,omitempty"`
	// Trusted and Distorted name the run's figures that the noise leaves
	// intact and those it distorts (latency, throughput, find-max rates),
	// for a noisy run.
	Trusted   []RunFigure `json:"trusted,omitempty"`
	Distorted []RunFigure `json:"distorted,omitempty"`
	// SpunShare is the share of the service's CPU its runtime spun
	// waiting for threads the crowded machine did not run: it moves the
	// CPU per request among the distorted figures (see MarkSpun in
	// package service).
	SpunShare float64 `json:"spun_share,omitempty"`
	// ProfileOverMeasured is how many times the CPU measured the CPU
	// profile stands for, when its profiler counted threads waiting for a
	// CPU as working: it moves the profile's shares among the distorted.
	ProfileOverMeasured float64 `json:"profile_over_measured,omitempty"`
	// SummaryNote, ReasonNotes, ValidNotes and InvalidNotes are the
	// words of a run written before schema 5 (its keys summary, reasons,
	// valid and invalid), which it is shown with; a newer run has none.
	SummaryNote  string   `json:"summary_note,omitempty"`
	ReasonNotes  []string `json:"reason_notes,omitempty"`
	ValidNotes   []string `json:"valid_notes,omitempty"`
	InvalidNotes []string `json:"invalid_notes,omitempty"`

	// Start and WindowS are the window the figures cover.
	Start     time.Time `json:"start"`
	WindowS   float64   `json:"window_s"`
	HostCores int       `json:"host_cores"`
	// HostBusyCores is the CPU the host's processes used (user and system
	// time of every process, the service and perflab included).
	HostBusyCores float64 `json:"host_busy_cores"`
	// IRQCores is interrupt and softirq work, charged to no process.
	IRQCores    float64 `json:"irq_cores"`
	IOWaitCores float64 `json:"iowait_cores"`
	// StealCores is CPU time the hypervisor gave to other guests.
	StealCores   float64 `json:"steal_cores"`
	ServiceCores float64 `json:"service_cores"`
	// PerflabCores is perflab's own CPU: the load generator, the samplers
	// and the profilers it started.
	PerflabCores float64 `json:"perflab_cores"`
	// OtherCores is HostBusyCores less the service's and perflab's CPU,
	// and at least what the process scans saw the other processes use.
	OtherCores float64 `json:"other_cores"`
	// PerflabRunqueueWaitS is how long perflab's threads were runnable but
	// waited for a CPU; the generator's waiting is inside every latency it
	// records. Per request when the run had requests.
	PerflabRunqueueWaitS    float64 `json:"perflab_runqueue_wait_s"`
	PerflabWaitMsPerRequest float64 `json:"perflab_wait_ms_per_request,omitempty"`
	// ServiceRunqueueWaitS is the same for the service's threads (its CPU
	// quota included: a throttled thread waits too).
	ServiceRunqueueWaitS    float64 `json:"service_runqueue_wait_s"`
	ServiceWaitMsPerRequest float64 `json:"service_wait_ms_per_request,omitempty"`
	ServiceThrottledPct     float64 `json:"service_throttled_pct"`
	// TopOther are the other processes that used the most CPU.
	TopOther []ProcessCPU `json:"top_other,omitempty"`
}

// ProcessCPU is one process's CPU over the window.
type ProcessCPU struct {
	PID   int     `json:"pid"`
	Name  string  `json:"name"`
	Cores float64 `json:"cores"`
}

// Noisy says the measurement was not alone on the machine.
func (q *Quality) Noisy() bool { return q != nil && q.Verdict == QualityNoisy }

// Trusts says whether the noise leaves figure f intact: it is clean, or f
// is not among the distorted figures.
func (q *Quality) Trusts(f RunFigure) bool { return !q.Noisy() || !slices.Contains(q.Distorted, f) }
