package service

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"perflab/internal/labtest"
)

func TestParseHostStat(t *testing.T) {
	in := "cpu  100 5 50 1000 7 3 2 11 0 0\ncpu0 50 2 25 500 3 1 1 5 0 0\ncpu1 50 3 25 500 4 2 1 6 0 0\nintr 12345 0 0\n"
	got, err := parseHostStat([]byte(in))
	want := hostCPU{User: 105, System: 50, IRQ: 5, Idle: 1000, IOWait: 7, Steal: 11, CPUs: 2}
	if err != nil || got != want {
		t.Errorf("parseHostStat = %+v, %v; want %+v", got, err, want)
	}
	old, err := parseHostStat([]byte("cpu  1 2 3 4\ncpu0 1 2 3 4\n"))
	if err != nil || old.User != 3 || old.Steal != 0 || old.CPUs != 1 {
		t.Errorf("a kernel without iowait/steal columns: %+v, %v", old, err)
	}
	for _, bad := range []string{"", "intr 1 2 3\n", "cpu  1 x 3 4 5\n", "cpu  1 2\n", "cpu  -1 2 3 4 5\n", "cpu  9223372036854775807 9223372036854775807 1 1 1\n"} {
		if _, err := parseHostStat([]byte(bad)); err == nil {
			t.Errorf("parseHostStat(%q): want an error", bad)
		}
	}
}

func FuzzParseHostStat(f *testing.F) {
	f.Add([]byte("cpu  100 5 50 1000 7 3 2 11 0 0\ncpu0 50 2 25 500 3 1 1 5 0 0\n"))
	f.Add([]byte("cpu 1 2 3 4"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := parseHostStat(b)
		if err == nil && (h.User < 0 || h.System < 0 || h.Steal < 0 || h.CPUs < 0) {
			t.Errorf("negative counters from %q: %+v", b, h)
		}
	})
}

func TestStatComm(t *testing.T) {
	for in, want := range map[string]string{
		"12 (bash) S 1 ...":          "bash",
		"12 (my (odd) name) R 1 ...": "my (odd) name",
		"12 bash S":                  "",
	} {
		if got := string(statComm([]byte(in))); got != want {
			t.Errorf("statComm(%q) = %q; want %q", in, got, want)
		}
	}
}

// startOrphan starts a helper that is not perflab's descendant, the way an
// unrelated process on the machine is, and returns its pid.
func startOrphan(t *testing.T, args ...string) int {
	t.Helper()
	cmd, env := helperCmd(t, args...)
	return labtest.StartOrphan(t, env, cmd...)
}

// procCPU is a process's own CPU seconds from /proc/PID/stat.
func procCPU(t *testing.T, pid int) float64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	st, err := parseProcStat(b)
	if err != nil {
		t.Fatal(err)
	}
	return float64(st.UTime+st.STime) / userHZ
}

// TestMachineSamplerNamesOtherProcesses runs a CPU-bound process beside the
// sampler: the window must name it with the cores it used (from its own
// /proc/PID/stat over the same span), and count it among other processes,
// while a child of perflab (a profiler, say) counts as perflab's.
func TestMachineSamplerNamesOtherProcesses(t *testing.T) {
	other := startOrphan(t, "spinfor", "20s")
	helper := exec.Command(os.Args[0])
	helper.Env = append(os.Environ(), helperEnv+"=spinfor", "GOMAXPROCS=1")
	helper.Args = []string{os.Args[0], "20s"}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = helper.Process.Kill(); _ = helper.Wait() }()

	m := NewMachineSampler(100 * time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); m.Run(ctx) }()
	// The window starts after the sampler's first samples.
	labtest.Eventually(t, 10*time.Second, "the sampler's first two samples", func() bool { return len(m.Samples()) >= 2 })
	m.ScanNow()
	from, c0, h0 := time.Now(), procCPU(t, other), procCPU(t, helper.Process.Pid)
	time.Sleep(3 * time.Second) // the measurement window
	to, c1, h1 := time.Now(), procCPU(t, other), procCPU(t, helper.Process.Pid)
	m.ScanNow()
	cancel()
	<-done

	w, ok := m.Window(from, to)
	if !ok {
		t.Fatal("no window")
	}
	used := (c1 - c0) / to.Sub(from).Seconds()
	var got *ProcessUse
	for i := range w.Top {
		if w.Top[i].PID == other {
			got = &w.Top[i]
		}
		if w.Top[i].PID == helper.Process.Pid {
			t.Errorf("perflab's own child %d is listed as another process: %+v", helper.Process.Pid, w.Top)
		}
	}
	switch {
	case got != nil:
		if math.Abs(got.Cores-used) > max(0.1*used, 0.02) {
			t.Errorf("the window says pid %d used %.2f cores; it used %.2f", other, got.Cores, used)
		}
	case len(w.Top) < topProcesses || w.Top[len(w.Top)-1].Cores < used-0.02:
		t.Errorf("the CPU-bound process %d (%.2f cores) is not among the top other processes %+v", other, used, w.Top)
	default:
		t.Logf("the CPU-bound process used %.2f cores, less than %d others on this busy machine", used, topProcesses)
	}
	want := filepath.Base(os.Args[0]) // this test binary's: the kernel keeps 15 bytes of it
	if len(want) > 15 {
		want = want[:15]
	}
	if got != nil && got.Name != want {
		t.Errorf("the process is named %q; want its command, %s", got.Name, want)
	}
	if child := (h1 - h0) / to.Sub(from).Seconds(); w.SelfCores < 0.9*child {
		t.Errorf("perflab's cores %.2f do not include its spinning child's %.2f", w.SelfCores, child)
	}
	if w.ProcCores < used || w.HostCores < 1 || w.Seconds < 2.9 {
		t.Errorf("host figures do not add up: %+v (the other process used %.2f)", w, used)
	}
	t.Logf("window: %+v; the other process used %.2f cores", w, used)
}

// BenchmarkMachineSample measures one pass of the machine sampler's fast
// part (host counters, perflab's CPU and run-queue wait) and one scan of
// every process, and reports the share of a core the sampler costs at
// perflab's rates: a sample every 200 ms, a scan every second at most.
func BenchmarkMachineSample(b *testing.B) {
	m := NewMachineSampler(0)
	b.Run("sample", func(b *testing.B) {
		b.ReportAllocs()
		start := cpuNow()
		for b.Loop() {
			if _, ok := m.sample(); !ok {
				b.Fatal("no sample")
			}
		}
		us := float64((cpuNow() - start).Microseconds()) / float64(b.N)
		b.ReportMetric(us, "cpu-µs/sample")
		b.ReportMetric(us*5/1e6*100, "%core@5Hz")
	})
	b.Run("scan", func(b *testing.B) {
		b.ReportAllocs()
		procs := 0
		start := cpuNow()
		for b.Loop() {
			m.scanner.scan(time.Now(), m.self, 0)
			procs = len(m.scanner.pids)
		}
		us := float64((cpuNow() - start).Microseconds()) / float64(b.N)
		b.ReportMetric(us, "cpu-µs/scan")
		b.ReportMetric(float64(procs), "processes")
		b.ReportMetric(us/1e6*100, "%core@1Hz")
	})
}

// cpuNow is this process's CPU time.
func cpuNow() time.Duration { return time.Duration(rusageCPU() * float64(time.Second)) }

// TestScanAccountsReapedChildrenOnce: a shell ran go, which ran link; both
// ended between two scans. link's CPU was counted while it ran; the shell's
// cutime now holds go's and link's: only what neither scan saw is new.
func TestScanAccountsReapedChildrenOnce(t *testing.T) {
	const self, shell, goCmd, link, other = 100, 200, 201, 202, 300
	s := procScanner{bootTicks: 10000, scanned: true, class: map[int]int8{}, names: map[procKey]string{}}
	s.last = map[int]scanEntry{
		shell: {start: 50, ppid: 1, total: 5, name: []byte("bash")},
		goCmd: {start: 60, ppid: shell, total: 23, name: []byte("go")},
		link:  {start: 70, ppid: goCmd, total: 63, name: []byte("link")},
		other: {start: 80, ppid: 1, total: 1000, name: []byte("stress")},
	}
	// go used 10 more ticks and link 7 more before they ended: the shell's
	// cutime grew by go's whole 23+10 and link's whole 63+7.
	s.cur = map[int]scanEntry{
		shell: {start: 50, ppid: 1, total: 5 + 33 + 70, child: 33 + 70, name: []byte("bash")},
		other: {start: 80, ppid: 1, total: 1100, name: []byte("stress")},
	}
	var out procScan
	s.account(&out, self, 0)
	got := map[string]int64{}
	for _, p := range out.others {
		got[p.name] = p.ticks
	}
	if got["bash"] != 17 || got["stress"] != 100 || out.otherTicks != 117 {
		t.Errorf("accounted %v (others %d); want bash 17 (go's and link's last ticks), stress 100", got, out.otherTicks)
	}
}

// TestScanKeepsParentCPUOfUnwaitedChild: a parent that ignores SIGCHLD
// does not collect its children's CPU in cutime; a child of it that ended
// between two scans must not be taken out of the parent's own CPU.
func TestScanKeepsParentCPUOfUnwaitedChild(t *testing.T) {
	const self, parent, child = 100, 200, 201
	s := procScanner{bootTicks: 10000, scanned: true, class: map[int]int8{}, names: map[procKey]string{}}
	s.last = map[int]scanEntry{
		parent: {start: 50, ppid: 1, total: 10, name: []byte("daemon")},
		child:  {start: 60, ppid: parent, total: 30, name: []byte("job")},
	}
	s.cur = map[int]scanEntry{
		parent: {start: 50, ppid: 1, total: 10 + 40, name: []byte("daemon")},
	}
	var out procScan
	s.account(&out, self, 0)
	if len(out.others) != 1 || out.others[0].ticks != 40 || out.otherTicks != 40 {
		t.Errorf("accounted %+v (others %d); want daemon 40, its own ticks", out.others, out.otherTicks)
	}
}

// TestScanCountsProfilersReapedByPerflab: a py-spy perflab started ended
// between two scans after 8 ticks the first scan saw, and another lived
// and ended between them: perflab's cutime grew by both, and only what no
// scan saw is new helper CPU, none of it another process's. A batch
// service that ended beside them takes the rest.
func TestScanCountsProfilersReapedByPerflab(t *testing.T) {
	const self, pyspy, service = 100, 200, 300
	last := map[int]scanEntry{
		self:  {start: 10, ppid: 1, total: 50, name: []byte("perflab")},
		pyspy: {start: 60, ppid: self, total: 8, name: []byte("py-spy")},
	}
	// pyspy used 4 more ticks before it exited; the unseen one used 6.
	cur := map[int]scanEntry{
		self: {start: 10, ppid: 1, total: 50 + 3 + 12 + 6, child: 12 + 6, name: []byte("perflab")},
	}
	s := procScanner{bootTicks: 10000, scanned: true, class: map[int]int8{}, names: map[procKey]string{}, last: last, cur: cur}
	var out procScan
	s.account(&out, self, 0)
	if out.helperTicks != 10 || out.otherTicks != 0 || len(out.others) != 0 {
		t.Errorf("helpers %d ticks, others %d %+v; want 10 (py-spy's last 4 and the unseen one's 6), none other", out.helperTicks, out.otherTicks, out.others)
	}
	last[service] = scanEntry{start: 70, ppid: self, total: 20, name: []byte("trace")}
	cur[self] = scanEntry{start: 10, ppid: 1, total: 50 + 12 + 20 + 30, child: 12 + 20 + 30, name: []byte("perflab")}
	s = procScanner{bootTicks: 10000, scanned: true, class: map[int]int8{}, names: map[procKey]string{}, last: last, cur: cur}
	out = procScan{}
	s.account(&out, self, service)
	if out.serviceTicks != 34 || out.helperTicks != 0 {
		t.Errorf("service %d ticks, helpers %d; want the ended batch service's interval to take the 34 unseen", out.serviceTicks, out.helperTicks)
	}
}
