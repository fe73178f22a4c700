package ktrace

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"net"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"

	"perflab/internal/labtest"
)

// BenchmarkSessionCost is what a session costs a service at saturation:
// the hello test service under `perflab load -c 50` (KTRACE_WORK=20us: each
// request spins that long first; KTRACE_SERVICE=demo: the demo service's /
// under -c 8; KTRACE_SERVICE=flask: testdata/services/flaskapp's /work?ms=1
// under gunicorn's 2 sync workers, a connection per request, under -c 8),
// the service on the last CPU and the load on the others (KTRACE_PIN=0:
// anywhere; see cpuPin), for KTRACE_ROUND (default 5s) per
// round, KTRACE_ROUNDS times (default 5) each way, interleaved, each round
// starting with the next arm (KTRACE_KEEPALIVE=0: the load opens a
// connection per request; KTRACE_ACCEPT_AT=sys_exit: the accept backlog
// timed at every system call's return, as on a kernel without the accept
// calls' tracepoints): without anything attached; with only an
// empty program (at sock_recv_length, the kernel's run-time statistics
// on: what they count for a program that does nothing, the floor of every
// run); with a session; with a session and AcceptBacklog; with a session
// and Stacks; and without anything again (how far apart two rounds of the
// same service lie: the noise under every ratio). It prints the medians: requests/s and the service's CPU per
// request each way (and that CPU's median ratio to the bare service's
// within each round), the programs' CPU (as the kernel counts it, scaled
// to the window) over the service's CPU, that less the floor, and per
// program its share, cost per run and runs per request. Each round also
// runs the three session arms and the bare service once more under perf
// (KTRACE_SAMPLED=0: not), and prints the share of the service's samples
// inside the programs (see startSampler).
// bench/ktrace-cost.sh runs it.
func BenchmarkSessionCost(b *testing.B) {
	labtest.RequireRoot(b, "loading kernel programs")
	rounds, round := envInt(b, "KTRACE_ROUNDS", 5), envDuration(b, "KTRACE_ROUND", 5*time.Second)
	if os.Getenv("KTRACE_ACCEPT_AT") == "sys_exit" {
		withoutTracefs(b)
	}
	dir := b.TempDir()
	if out, err := exec.Command("go", "build", "-o", dir+"/", "perflab/testdata/services/hello", "perflab/examples/server", "perflab/cmd/perflab").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	perflab := filepath.Join(dir, "perflab")
	pin := pinning(b)
	svc := startService(b, os.Getenv("KTRACE_SERVICE"), dir, pin)
	u, err := neturl.Parse(svc.url)
	if err != nil {
		b.Fatal(err)
	}
	port, _ := strconv.ParseUint(u.Port(), 10, 16)
	cfg := Config{PIDs: svc.pids, Ports: []uint16{uint16(port)}}
	backlog, stacks := cfg, cfg
	backlog.AcceptBacklog, stacks.Stacks = true, true
	arms := []*costArm{{name: "nothing"}, {name: "empty program", empty: true},
		{name: "session", cfg: &cfg}, {name: "+AcceptBacklog", cfg: &backlog}, {name: "+Stacks", cfg: &stacks},
		{name: "nothing, again"}}
	var sampled []*costArm
	if os.Getenv("KTRACE_SAMPLED") != "0" {
		sampled = []*costArm{{name: "session", cfg: &cfg, sample: true}, {name: "+AcceptBacklog", cfg: &backlog, sample: true},
			{name: "+Stacks", cfg: &stacks, sample: true}, {name: "nothing", sample: true}}
	}
	all := append(slices.Clone(arms), sampled...)
	for b.Loop() {
		for r := range rounds {
			// Each round starts with another arm, so that no arm always
			// follows the same one (a service's state after a round
			// with a session, the machine's drift within a round).
			for i := range all {
				a := all[(r+i)%len(all)]
				run, sample := loadRound(b, perflab, svc, round, a)
				if a.sample {
					a.sampled = append(a.sampled, sample)
				} else {
					a.runs = append(a.runs, run)
				}
			}
		}
	}
	if svc.loadCPUs != "" {
		fmt.Printf("the service on CPU %s, the load and the benchmark on CPU %s (KTRACE_PIN=0: anywhere)\n", pin.service, pin.load)
	}
	printCosts(arms, rounds, round)
	printSampled(sampled)
	base, on := arms[0].runs, arms[2].runs
	b.ReportMetric(median(on, costRound.rps)/median(base, costRound.rps), "rps-ratio")
	b.ReportMetric(100*median(on, costRound.programShare), "programs-%-of-service-cpu")
}

// costArm is one way of running the rounds, and its rounds.
type costArm struct {
	name    string
	empty   bool    // only the empty program
	cfg     *Config // a session for cfg
	sample  bool    // perf samples the service's threads (see startSampler)
	runs    []costRound
	sampled []sampledRound
}

// printCosts prints the table (to the standard output: a benchmark's log
// keeps only its first lines).
func printCosts(arms []*costArm, rounds int, round time.Duration) {
	base := arms[0].runs
	floor := median(arms[1].runs, costRound.nsPerRun)
	fmt.Printf("%d rounds of %v per arm, medians; the empty program: %.0f ns per run as the kernel counts it\n", rounds, round, floor)
	fmt.Printf("%-15s %9s %7s %12s %7s %7s %14s %12s %s\n", "arm", "req/s", "ratio", "svc µs/req", "ratio", "paired", "programs/svc", "less floor", "dropped")
	for _, a := range arms {
		var dropped uint64
		for _, r := range a.runs {
			dropped += r.dropped
		}
		fmt.Printf("%-15s %9.0f %7.3f %12.1f %7.3f %7.3f %13.2f%% %11.2f%% %d\n", a.name,
			median(a.runs, costRound.rps), median(a.runs, costRound.rps)/median(base, costRound.rps),
			median(a.runs, costRound.cpuPerRequest), median(a.runs, costRound.cpuPerRequest)/median(base, costRound.cpuPerRequest),
			pairedRatio(a.runs, base, costRound.cpuPerRequest),
			100*median(a.runs, costRound.programShare),
			100*median(a.runs, func(r costRound) float64 { return r.programShare() - r.floorShare(floor) }), dropped)
	}
	for _, a := range arms[2 : len(arms)-1] {
		fmt.Printf("%s, per program:\n", a.name)
		programCosts(a.runs)
	}
}

// costRound is one round's figures.
type costRound struct {
	requests   float64
	seconds    float64
	serviceCPU time.Duration
	programCPU time.Duration
	programs   map[string]Stat
	dropped    uint64
}

// nsPerRun is the programs' mean run time.
func (r costRound) nsPerRun() float64 {
	var runs uint64
	for _, st := range r.programs {
		runs += st.Count
	}
	return float64(r.programCPU.Nanoseconds()) / float64(max(runs, 1))
}

func (r costRound) rps() float64 { return r.requests / r.seconds }
func (r costRound) cpuPerRequest() float64 {
	return float64(r.serviceCPU.Microseconds()) / r.requests
}
func (r costRound) programShare() float64 { return r.programCPU.Seconds() / r.serviceCPU.Seconds() }

// floorShare is what the round's program runs would cost if each cost
// floorNs, over the service's CPU.
func (r costRound) floorShare(floorNs float64) float64 {
	var runs uint64
	for _, st := range r.programs {
		runs += st.Count
	}
	return float64(runs) * floorNs / float64(r.serviceCPU.Nanoseconds())
}

func median(rs []costRound, f func(costRound) float64) float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// pairedRatio is the median over rounds of f's ratio to the same round's
// base: each round runs every arm seconds apart, so the machine's drift
// from round to round cancels.
func pairedRatio(rs, base []costRound, f func(costRound) float64) float64 {
	v := make([]float64, len(rs))
	for i := range rs {
		v[i] = f(rs[i]) / f(base[i])
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// loadRound runs the load for d and measures the service's CPU over it,
// and the programs' CPU of the arm's session or empty program; in an arm
// that samples, what perf's samples of the service show instead.
func loadRound(b *testing.B, perflab string, svc *costService, d time.Duration, arm *costArm) (costRound, sampledRound) {
	b.Helper()
	if arm.empty {
		return emptyRound(b, perflab, svc, d), sampledRound{}
	}
	var s *Session
	if arm.cfg != nil {
		var err error
		if s, err = Start(*arm.cfg); err != nil {
			b.Fatal(err)
		}
	}
	cpu := serviceCPU(b, svc.pids)
	var before Totals
	if s != nil {
		var err error
		if before, err = s.Read(); err != nil {
			b.Fatal(err)
		}
	}
	var stop func() sampledRound
	if arm.sample {
		stop = startSampler(b, svc.pids, d)
	}
	cpu0 := cpu()
	r := costRound{}
	r.requests, r.seconds = load(b, perflab, svc, d)
	r.serviceCPU = cpu() - cpu0
	var sample sampledRound
	if stop != nil {
		sample = stop()
	}
	if s != nil {
		after, err := s.Read()
		if err != nil {
			b.Fatal(err)
		}
		w := after.Sub(before)
		r.programCPU, r.programs, _ = w.ProgramEstimate()
		r.dropped = w.Dropped.Total()
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
	return r, sample
}

// costService is the service a cost benchmark loads: its processes, its
// URL, the load's concurrency and the CPUs the load runs on (none: any).
type costService struct {
	pids     []int
	url      string
	clients  int
	loadCPUs string
}

// cpuPin is where a cost benchmark runs the service and its load: apart
// (KTRACE_PIN=1, the default on two CPUs or more), so that the service's
// CPU per request does not move with how the two share a CPU from round
// to round (how many requests each wake-up finds), which hides a cost of a
// few percent; or anywhere (KTRACE_PIN=0).
type cpuPin struct{ service, load string }

// pinning returns the CPUs of the service and of the load (empty: not
// pinned): the last CPU for the service, the others for the load, where
// it also moves the benchmark's own threads.
func pinning(b *testing.B) cpuPin {
	var set unix.CPUSet
	if os.Getenv("KTRACE_PIN") == "0" || unix.SchedGetaffinity(0, &set) != nil || set.Count() < 2 {
		return cpuPin{}
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		b.Fatalf("KTRACE_PIN: taskset not installed (util-linux); KTRACE_PIN=0 runs unpinned")
	}
	var cpus []string
	for i := range 1024 {
		if set.IsSet(i) {
			cpus = append(cpus, strconv.Itoa(i))
		}
	}
	service, _ := strconv.Atoi(cpus[len(cpus)-1])
	set.Clear(service)
	pinSelf(b, set)
	return cpuPin{service: cpus[len(cpus)-1], load: strings.Join(cpus[:len(cpus)-1], ",")}
}

// pinSelf moves every thread of the benchmark (the session's sampler
// among them) to set, off the service's CPU; threads started later
// inherit it from the thread that starts them.
func pinSelf(b *testing.B, set unix.CPUSet) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		b.Fatal(err)
	}
	for _, t := range tasks {
		if tid, err := strconv.Atoi(t.Name()); err == nil {
			if err := unix.SchedSetaffinity(tid, &set); err != nil && err != unix.ESRCH {
				b.Fatalf("pinning the benchmark's thread %d: %v", tid, err)
			}
		}
	}
}

// pinned is cmd run by taskset on cpus (cmd itself when cpus is empty);
// taskset executes cmd, so the process keeps its id.
func pinned(cpus string, name string, args ...string) *exec.Cmd {
	if cpus == "" {
		return exec.Command(name, args...)
	}
	return exec.Command("taskset", append([]string{"-c", cpus, name}, args...)...)
}

// startService starts the service named (hello by default, demo or
// flask), the Go ones from the programs built in dir.
func startService(b *testing.B, name, dir string, pin cpuPin) *costService {
	b.Helper()
	switch name {
	case "", "hello":
		// KTRACE_WORK spins each request on the CPU for that long (a
		// service of a known cost a request).
		work := cmp.Or(os.Getenv("KTRACE_WORK"), "0s")
		cmd := pinned(pin.service, filepath.Join(dir, "hello"), "-addr", "127.0.0.1:0", "-pprof-addr", "127.0.0.1:0", "-work", work)
		url := listening(b, cmd, "listening on ") + "/"
		return &costService{pids: []int{cmd.Process.Pid}, url: url, clients: 50, loadCPUs: pin.load}
	case "demo":
		cmd := pinned(pin.service, filepath.Join(dir, "server"), "-addr", "127.0.0.1:0", "-pprof-addr", "127.0.0.1:0")
		url := listening(b, cmd, "listening on ") + "/"
		return &costService{pids: []int{cmd.Process.Pid}, url: url, clients: 8, loadCPUs: pin.load}
	case "flask":
		addr := freeAddr(b)
		cmd := pinned(pin.service, "python3", "-m", "gunicorn", "-w", "2", "-b", addr, "--worker-class", "sync", "app:app")
		cmd.Dir = "../../testdata/services/flaskapp"
		listening(b, cmd, "Booting worker")
		labtest.Eventually(b, 30*time.Second, "gunicorn's two workers", func() bool { return len(tree(cmd.Process.Pid)) >= 3 })
		return &costService{pids: tree(cmd.Process.Pid), url: "http://" + addr + "/work?ms=1", clients: 8, loadCPUs: pin.load}
	}
	b.Fatalf("KTRACE_SERVICE=%q: want hello, demo or flask", name)
	return nil
}

// listening starts cmd and waits (30 s at most) for a line of its output
// holding marker; it returns what follows the marker on that line.
func listening(b *testing.B, cmd *exec.Cmd, marker string) string {
	b.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = &unix.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	w.Close()
	b.Cleanup(func() { _ = unix.Kill(-cmd.Process.Pid, unix.SIGKILL); _ = cmd.Wait(); r.Close() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if _, rest, ok := strings.Cut(sc.Text(), marker); ok {
				select {
				case found <- strings.TrimSpace(rest):
				default:
				}
			}
		}
	}()
	select {
	case s := <-found:
		return s
	case <-time.After(30 * time.Second):
		b.Fatalf("%s did not say %q in 30 s", cmd.Path, marker)
	}
	return ""
}

// tree is pid and its children (a pre-fork server's master and workers).
func tree(pid int) []int {
	out := []int{pid}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return out
	}
	for _, f := range strings.Fields(string(b)) {
		if c, err := strconv.Atoi(f); err == nil {
			out = append(out, c)
		}
	}
	return out
}

// freeAddr is a loopback address nobody listens on now.
func freeAddr(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a count ≥ 1", name, v)
	}
	return n
}

func envDuration(b *testing.B, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		b.Fatalf("%s=%q: want a duration such as 5s", name, v)
	}
	return d
}

// load runs perflab load for d at the service's concurrency (a connection
// per request with KTRACE_KEEPALIVE=0) and returns the requests and
// seconds.
func load(b *testing.B, perflab string, svc *costService, d time.Duration) (float64, float64) {
	args := []string{"load", "-c", strconv.Itoa(svc.clients), "-d", d.String(), "--json", "--quiet", svc.url}
	if os.Getenv("KTRACE_KEEPALIVE") == "0" {
		args = append(args, "--disable-keepalive")
	}
	out, err := pinned(svc.loadCPUs, perflab, args...).Output()
	if err != nil {
		b.Fatalf("perflab load: %v", err)
	}
	var res struct {
		Requests float64 `json:"requests"`
		Errors   float64 `json:"errors"`
		Duration float64 `json:"duration_s"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.Errors > 0 {
		b.Fatalf("perflab load: %v, %v errors", err, res.Errors)
	}
	return res.Requests, res.Duration
}

// serviceCPU returns a function reading the processes' CPU time.
func serviceCPU(b *testing.B, pids []int) func() time.Duration {
	var procs []procfs.Proc
	for _, pid := range pids {
		proc, err := procfs.NewProc(pid)
		if err != nil {
			b.Fatal(err)
		}
		procs = append(procs, proc)
	}
	return func() time.Duration {
		var sum time.Duration
		for _, proc := range procs {
			st, err := proc.Stat()
			if err != nil {
				b.Fatal(err)
			}
			sum += time.Duration(st.CPUTime() * float64(time.Second))
		}
		return sum
	}
}

// emptyRound runs the load with only an empty program attached at
// sock_recv_length and the kernel's run-time statistics on.
func emptyRound(b *testing.B, perflab string, svc *costService, d time.Duration) costRound {
	p, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.Tracing, AttachType: ebpf.AttachTraceRawTp, AttachTo: "sock_recv_length",
		License: "GPL", Instructions: asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()}})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	stats, err := ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME))
	if err != nil {
		b.Fatal(err)
	}
	defer stats.Close()
	l, err := link.AttachTracing(link.TracingOptions{Program: p})
	if err != nil {
		b.Fatal(err)
	}
	cpu := serviceCPU(b, svc.pids)
	cpu0 := cpu()
	r := costRound{}
	r.requests, r.seconds = load(b, perflab, svc, d)
	r.serviceCPU = cpu() - cpu0
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
	st, err := p.Stats()
	if err != nil {
		b.Fatal(err)
	}
	r.programCPU, r.programs = st.Runtime, map[string]Stat{"empty": {Count: st.RunCount, Time: st.Runtime}}
	return r
}

// programCosts prints each program's median share of the service's CPU,
// cost per run and runs per request.
func programCosts(rs []costRound) {
	for _, p := range programs {
		fmt.Printf("  %-12s %6.2f%% of the service's CPU, %4.0f ns per run, %5.2f runs per request\n", p.name,
			100*median(rs, func(r costRound) float64 { return r.programs[p.name].Time.Seconds() / r.serviceCPU.Seconds() }),
			median(rs, func(r costRound) float64 { return float64(r.programs[p.name].Mean().Nanoseconds()) }),
			median(rs, func(r costRound) float64 { return float64(r.programs[p.name].Count) / r.requests }))
	}
}
