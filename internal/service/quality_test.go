package service

import (
	"math"
	"slices"
	"testing"

	"perflab/internal/runfmt"
)

// TestAssessServiceOnlyScanned: a run given only the service's URL samples
// no service, but the machine scans followed its process tree: its CPU is
// the service's, not another process's, and a machine where nothing else
// ran is clean.
func TestAssessServiceOnlyScanned(t *testing.T) {
	m := MachineWindow{Seconds: 3, HostCores: 2, ProcCores: 1.15, SelfCores: 0.1, ServiceCores: 1.0}
	q := Assess(QualityInput{Machine: m, Requests: 3000, LatencyMeanMs: 1})
	if q.Verdict != runfmt.QualityClean || q.ServiceCores != 1.0 || q.OtherCores > 0.051 {
		t.Errorf("Assess = %s %s (service %.2f, other %.2f cores); want clean, the scanned service's 1.00 cores not counted as other", q.Verdict, q.Causes, q.ServiceCores, q.OtherCores)
	}
	// The sampled figure, when there is one, is the service's.
	q = Assess(QualityInput{Machine: m, Service: &runfmt.TargetSummary{CPUCoresMean: 0.5}})
	if q.ServiceCores != 0.5 || q.Verdict != runfmt.QualityNoisy || !slices.Equal(q.Causes, []runfmt.NoiseCause{runfmt.NoiseOtherProcesses}) {
		t.Errorf("Assess with a sampled service of 0.50 cores = %s %s (service %.2f); want noisy, the other 0.55 cores unexplained", q.Verdict, q.Causes, q.ServiceCores)
	}
}

// TestScanCountsTheServiceTree: the service's processes and their children
// are counted as the service's, not named among the other processes.
func TestScanCountsTheServiceTree(t *testing.T) {
	const self, service, worker, other = 100, 200, 201, 300
	s := procScanner{bootTicks: 10000, scanned: true, class: map[int]int8{}, names: map[procKey]string{}}
	s.last = map[int]scanEntry{
		service: {start: 50, ppid: 1, total: 5, name: []byte("gunicorn")},
		worker:  {start: 60, ppid: service, total: 10, name: []byte("gunicorn")},
		other:   {start: 80, ppid: 1, total: 1000, name: []byte("stress")},
	}
	s.cur = map[int]scanEntry{
		service: {start: 50, ppid: 1, total: 6, name: []byte("gunicorn")},
		worker:  {start: 60, ppid: service, total: 90, name: []byte("gunicorn")},
		other:   {start: 80, ppid: 1, total: 1030, name: []byte("stress")},
	}
	var out procScan
	s.account(&out, self, service)
	if out.serviceTicks != 81 || out.otherTicks != 30 || len(out.others) != 1 || out.others[0].pid != other {
		t.Errorf("service %d ticks, others %d %+v; want the service's tree 81 (master 1, worker 80), stress 30", out.serviceTicks, out.otherTicks, out.others)
	}
}

// TestAssessOthersScannedFloor: where the host's user and system time less
// the service's and perflab's reads below what the scans saw the other
// processes use (the processes' times include softirq work /proc/stat
// books apart), the scans' sum stands.
func TestAssessOthersScannedFloor(t *testing.T) {
	m := MachineWindow{Seconds: 3, HostCores: 2, ProcCores: 1.96, SelfCores: 0.46, OtherScannedCores: 0.72,
		Top: []ProcessUse{{PID: 7, Name: "spin", Cores: 0.39}, {PID: 8, Name: "spin", Cores: 0.33}}}
	q := Assess(QualityInput{Machine: m, Service: &runfmt.TargetSummary{CPUCoresMean: 1.0}, Requests: 1000, LatencyMeanMs: 1})
	if q.OtherCores != 0.72 || !q.Noisy() {
		t.Errorf("Assess = %s (other %.2f cores); want noisy, the scanned 0.72 cores", q.Verdict, q.OtherCores)
	}
	m.OtherScannedCores = 0.1
	if q = Assess(QualityInput{Machine: m, Service: &runfmt.TargetSummary{CPUCoresMean: 1.0}}); math.Abs(q.OtherCores-0.5) > 1e-9 {
		t.Errorf("other %.2f cores; want the host's 0.50 where the scans saw less", q.OtherCores)
	}
}
