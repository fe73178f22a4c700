package service

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// helperEnv switches the test binary into one of the helper services below,
// so tests launch real processes without building anything.
const helperEnv = "PERFLAB_TARGET_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		runHelper(mode, os.Args[1:])
		os.Exit(0)
	}
	code := m.Run()
	if left := leftoverGroups(); code == 0 && len(left) > 0 {
		fmt.Fprintf(os.Stderr, "cgroups left behind: %v\n", left)
		code = 1
	}
	os.Exit(code)
}

// leftoverGroups lists perflab groups created by this test process.
func leftoverGroups() []string {
	var out []string
	l := detectLayout()
	parents := []string{"/sys/fs/cgroup/unified", "/sys/fs/cgroup"}
	for _, d := range l.selfDirs() {
		parents = append(parents, d)
	}
	for _, h := range l.v1 {
		parents = append(parents, h.mount)
	}
	suffix := "-" + strconv.Itoa(os.Getpid()) + "-"
	for _, p := range parents {
		m, _ := filepath.Glob(filepath.Join(p, "perflab-*"))
		for _, d := range m {
			if strings.Contains(filepath.Base(d), suffix) {
				out = append(out, d)
			}
		}
	}
	return out
}

// runHelper runs a helper service:
//
//	burn N            N goroutines spinning until killed
//	burnfor SECONDS   spin until this process used SECONDS of CPU, print
//	                  "cpu=<seconds>" (from getrusage), then sleep (or exit
//	                  when the second argument is "exit")
//	spinfor DURATION  spin on one core for DURATION of wall time, then exit
//	serve ADDR        HTTP server answering 200 on ADDR
//	serve-crash ADDR  serve, then exit with status 2 after 300ms
//	serve-quiet ADDR  serve without saying where
//	serve-after D ADDR    wait D, then serve (a service slow to start)
//	serve-late D ADDR     listen and say so at once, answer only after D
//	                      (a pre-fork server loading its workers)
//	hog                   allocate and touch memory, a MiB at a time, until
//	                      killed
//	perflab MARKER    act as a perflab: launch a service that starts a
//	                  daemon (setsid, out of its process group) named
//	                  MARKER, print "launched", then wait to be killed
func runHelper(mode string, args []string) {
	switch mode {
	case "perflab":
		script := "setsid bash -c 'exec -a " + args[0] + " sleep 300' </dev/null >/dev/null 2>&1 & exec sleep 300"
		p, err := Launch(context.Background(), LaunchConfig{Command: []string{"sh", "-c", script}, Name: "orphan"})
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		labtest.Until(10*time.Second, func() bool { return len(p.PIDs()) >= 2 })
		fmt.Println("launched", p.Source())
		time.Sleep(time.Hour) // planted: the helper runs until killed
	case "hog":
		for {
			b := make([]byte, 1<<20)
			for i := range b {
				b[i] = 1
			}
			hogs = append(hogs, b)
		}
	case "burn":
		n, _ := strconv.Atoi(args[0])
		runtime.GOMAXPROCS(n)
		for range n - 1 {
			go spin()
		}
		spin()
	case "burnfor":
		want, _ := strconv.ParseFloat(args[0], 64)
		for rusageCPU() < want {
			for range 1000000 {
				sink++
			}
		}
		fmt.Printf("cpu=%.6f\n", rusageCPU())
		if len(args) > 1 && args[1] == "exit" {
			return
		}
		time.Sleep(time.Hour) // planted: the helper stays, idle, until killed
	case "spinfor":
		d, _ := time.ParseDuration(args[0])
		for deadline := time.Now().Add(d); time.Now().Before(deadline); {
			for range 100000 {
				sink++
			}
		}
	case "serve-after", "serve-late":
		d, _ := time.ParseDuration(args[0])
		if mode == "serve-after" {
			time.Sleep(d) // planted: a service slow to start
		}
		ln, err := net.Listen("tcp", args[1])
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("listening on", ln.Addr())
		if mode == "serve-late" {
			time.Sleep(d) // planted: a service slow to answer
		}
		_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	case "serve", "serve-crash", "serve-quiet":
		ln, err := net.Listen("tcp", args[0])
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		if mode != "serve-quiet" {
			fmt.Println("listening on", ln.Addr())
		}
		if mode == "serve-crash" {
			time.AfterFunc(300*time.Millisecond, func() {
				fmt.Println("panic: planted crash")
				os.Exit(2)
			})
		}
		_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	}
}

var (
	sink int
	hogs [][]byte
)

func spin() {
	for {
		sink++
	}
}

func rusageCPU() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// helperCmd is the command line that runs a helper.
func helperCmd(t testing.TB, args ...string) ([]string, []string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{exe}, args[1:]...), []string{helperEnv + "=" + args[0]}
}

// niceCmd runs a helper at nice -10 so that a test of CPU shares still gets
// its cores on a machine busy with other work (other test packages run in
// parallel with this one).
func niceCmd(t testing.TB, args ...string) ([]string, []string) {
	cmd, env := helperCmd(t, args...)
	return append([]string{"nice", "-n", "-10"}, cmd...), env
}

// launchT launches cfg with the host's layout and stops it at cleanup.
func launchT(t *testing.T, cfg LaunchConfig) *Process {
	t.Helper()
	return launchWith(t, cfg, detectLayout())
}

func launchWith(t *testing.T, cfg LaunchConfig, l layout) *Process {
	t.Helper()
	p, err := launch(t.Context(), cfg, l)
	if err != nil {
		t.Fatalf("launch %v: %v", cfg.Command, err)
	}
	t.Cleanup(func() {
		if err := p.Stop(time.Second); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return p
}

// needCgroup skips when the launch could not get a cgroup.
func needCgroup(t *testing.T, p *Process) {
	t.Helper()
	if p.Source() == "proc" {
		t.Skip(labtest.SkipMessage(labtest.SkipHost, "cgroup", fmt.Sprintf("no cgroup for the service on this machine: %v", p.Warnings())))
	}
}

// waitLine waits until the service printed a line starting with prefix.
func waitLine(t *testing.T, p *Process, prefix string, d time.Duration) string {
	t.Helper()
	var line string
	if !labtest.Until(d, func() bool {
		for _, l := range p.LogTail(50) {
			if strings.HasPrefix(l, prefix) {
				line = l
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no line %q from the service after %s; log: %q", prefix, d, p.LogTail(20))
	}
	return line
}

// sampleFor runs a sampler for d and returns its samples.
func sampleFor(t *testing.T, p *Process, interval, d time.Duration) []Sample {
	t.Helper()
	s := NewSampler(p, interval)
	ctx, cancel := contextWithTimeout(t, d)
	defer cancel()
	s.Run(ctx)
	return s.Samples()
}

func contextWithTimeout(t *testing.T, d time.Duration) (ctx context.Context, cancel func()) {
	return context.WithTimeout(t.Context(), d)
}

// cleanWindow samples p for d at 100 ms, as sampleFor does, with the
// machine sampled beside it, and returns the window of its steady part
// (steady). The service runs at the default CPU weight, beside the host's
// other work, which on a loaded host takes a good part of what its budget
// allows: a window whose figures want rejects, on a machine Assess finds
// noisy, is sampled again
// (labtest.Clean).
func cleanWindow(t *testing.T, p *Process, d time.Duration, want func(runfmt.TargetSummary) bool) runfmt.TargetSummary {
	t.Helper()
	var w runfmt.TargetSummary
	labtest.Clean(t, func(int) string {
		m := NewMachineSampler(100 * time.Millisecond)
		m.SetService(p.PID())
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			m.Run(ctx)
		}()
		ss := sampleFor(t, p, 100*time.Millisecond, d)
		cancel()
		<-done
		from, to := steady(ss)
		w = Window(ss, from, to, p.CPULimitCores(), 2)
		if want(w) {
			return ""
		}
		mw, ok := m.Window(from, to)
		if !ok {
			return ""
		}
		if q := Assess(QualityInput{Machine: mw, Service: &w}); q.Verdict == runfmt.QualityNoisy {
			return fmt.Sprintf("%.3f cores, throttled in %.0f%% of periods, on a machine found noisy (%s)", w.CPUCoresMean, w.ThrottledPct, runfmt.Words(q.Causes))
		}
		return ""
	})
	return w
}
