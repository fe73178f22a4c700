package lab

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/load"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// quickService is the tolower test service, launched, without profiles.
func quickService(t *testing.T) (Config, string) {
	t.Helper()
	addr := labtest.FreeAddr(t)
	cfg := acceptanceConfig(t, addr, "/search?q=oak", acceptanceBinary(t, "tolower"), "-addr", addr, "-pprof-addr", labtest.FreeAddr(t))
	cfg.Profiler, cfg.NoTrace, cfg.Warmup = ProfilerNone, true, 500*time.Millisecond
	cfg.Load.Duration = 2 * time.Second
	return cfg, addr
}

// TestCPUPerRequestWithOtherClients: another process loads the service
// through the window; its CPU is then not this load's alone, so no CPU
// per request is given (it would charge the other client's requests to
// this load's), and the run says how many connections others made and,
// the client being on this machine, which process it is.
func TestCPUPerRequestWithOtherClients(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a service")
	}
	cfg, addr := quickService(t)
	client := exec.Command(os.Args[0], "-test.run=^TestOtherClientHelper$")
	client.Env = append(os.Environ(), "PERFLAB_OTHER_CLIENT=http://"+addr+"/search?q=oak")
	if err := client.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { client.Process.Kill(); client.Wait() }()
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := readRun(t, res)
	tg := r.Target
	if tg == nil || tg.CPUMsPerRequest != 0 || tg.OtherClients == 0 || !strings.Contains(tg.CPUPerRequestNote, "other clients") {
		t.Fatalf("target %+v; want no CPU per request, the other clients' connections counted and said", tg)
	}
	if !slicesContains(r.Warnings, "other clients reached the service") {
		t.Errorf("warnings %q; want one about the other clients", r.Warnings)
	}
	// The other client is on this machine: the note names its process.
	if by := fmt.Sprintf("127.0.0.1 by pid %d (", client.Process.Pid); !strings.Contains(tg.CPUPerRequestNote, by) {
		t.Errorf("note %q; want it to name the other client, %q", tg.CPUPerRequestNote, by)
	}
}

// TestOtherClientHelper is the other client of
// TestCPUPerRequestWithOtherClients: it sends requests over a keep-alive
// connection until it is killed (30 s at most).
func TestOtherClientHelper(t *testing.T) {
	u := os.Getenv("PERFLAB_OTHER_CLIENT")
	if u == "" {
		t.Skip("run by TestCPUPerRequestWithOtherClients")
	}
	get := func() bool {
		resp, err := http.Get(u)
		if err != nil {
			return false
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return true
	}
	// While the service does not answer, wait for it to.
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); {
		labtest.Until(time.Until(end), get)
	}
}

// TestCPUPerRequestCountsAnswered: two of three targets refuse every
// connection; CPU per request divides by the requests the service
// answered, not by all of them, and a run whose requests mostly failed
// is degraded, not complete.
func TestCPUPerRequestCountsAnswered(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a service")
	}
	cfg, _ := quickService(t)
	for range 2 {
		u, err := load.ParseURL("http://" + labtest.RefusedAddr(t) + "/")
		if err != nil {
			t.Fatal(err)
		}
		cfg.Load.Targets = append(cfg.Load.Targets, load.Target{Method: "GET", URL: u, Header: http.Header{}})
	}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := readRun(t, res)
	var answered int64
	for _, n := range r.Load.Status {
		answered += n
	}
	if r.Load.ErrorKinds["refused"] == 0 || answered == 0 || r.Target == nil {
		t.Fatalf("load %+v; want refused and answered requests", r.Load)
	}
	want := r.Target.CPUSeconds * 1000 / float64(answered)
	if got := r.Target.CPUMsPerRequest; got < want*0.999 || got > want*1.001 {
		t.Errorf("CPU per request %.4f ms; want %.4f (%.3f s ÷ %d answered, not ÷ %d requests)", got, want, r.Target.CPUSeconds, answered, r.Load.Requests)
	}
	if r.Status != runfmt.StatusDegraded || len(r.Degradations) != 1 || r.Degradations[0].Why != runfmt.DegradeRequestsFailed {
		t.Errorf("status %s %+v; want degraded: most requests failed", r.Status, r.Degradations)
	}
}

// TestLoadURLServedByAnotherProcess: attached to a process that does not
// listen on the load URL's port, the run says who does.
func TestLoadURLServedByAnotherProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a service")
	}
	cfg, addr := quickService(t)
	server := exec.Command(cfg.Command[0], cfg.Command[1:]...)
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { server.Process.Kill(); server.Wait() }()
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	cfg.Command, cfg.Budget, cfg.PID = nil, service.Budget{}, other.Process.Pid
	cfg.Load.Duration = time.Second
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := readRun(t, res)
	if !slicesContains(r.Warnings, addr+" is served by") {
		t.Errorf("warnings %q; want one saying %s is served by another process", r.Warnings, addr)
	}
}

// slicesContains says whether some string of list holds sub.
func slicesContains(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
