package cli

import (
	"context"
	"encoding/json"
	"net"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// TestABLibraryUnderUserFunction: grpcapi's buggy mode prints each answer
// with fmt.Println, whose cost is protobuf's text formatting. The verdict
// names the user's function first with the library under it; ab of the fix
// names the user's function whose cost fell, not protobuf's function
// "gone"; and runs made with --user-code are compared by that rule.
func TestABLibraryUnderUserFunction(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 12 real runs of a Go service and its gRPC upstream")
	}
	labtest.RequireRoot(t, "ab runs the service under a --cpus budget (cgroups)")
	upstream := startGrpcCache(t)
	bin := labtest.BuildService(t, "grpcapi")
	api, pp := labtest.FreeAddr(t), labtest.FreeAddr(t)
	svc := bin + " -upstream " + upstream + " -addr " + api + " -pprof-addr " + pp
	ab := func(dir string, extra ...string) *runfmt.Comparison {
		t.Helper()
		env, out, errb := testEnv()
		args := append([]string{"ab", "--json", "--quiet", "--dir", dir, "--runs", "3",
			"-d", "2s", "--warmup", "1s", "--cpus", "1", "-c", "4", "--pprof", "http://" + pp,
			"--name", "grpcapi", "--base", svc + " -mode=buggy", "--new", svc + " -mode=fixed"}, extra...)
		if code := Main(context.Background(), append(args, "http://"+api+"/image?name=3"), env); code != 0 {
			t.Fatalf("perflab ab exited %d\nstderr:\n%s", code, errb)
		}
		var c runfmt.Comparison
		if err := json.Unmarshal(out.Bytes(), &c); err != nil {
			t.Fatalf("ab --json: %v\n%s", err, out)
		}
		return &c
	}

	dir := t.TempDir()
	c := ab(dir)
	top := topGainer(c.Functions, runfmt.ProfileCPU)
	if top == nil || !strings.HasPrefix(top.Function, "main.") {
		t.Errorf("top CPU gainer = %+v; want the user's function (main.*), not protobuf's", top)
	} else {
		t.Logf("top gainer: %s %.1f -> %.1f µs/request", top.Function, top.Base, top.New)
	}
	for _, f := range c.Functions {
		if f.UserCode && strings.HasPrefix(f.Function, "google.golang.org/") {
			t.Errorf("protobuf's %s listed as user code", f.Function)
		}
	}
	base := profiledRun(t, dir, "grpcapi-base")
	first := firstUserHot(base.Hot)
	if first == nil || !strings.HasPrefix(first.Function, "main.") || !strings.HasPrefix(first.Library, "google.golang.org/protobuf") {
		t.Errorf("first user function of the verdict = %+v; want main.* with google.golang.org/protobuf under it", first)
	} else {
		t.Logf("hot: %s, library %s %.0f of %.0f µs/request", first.Function, first.Library, first.LibraryUsPerRequest, first.CPUUsPerRequest+first.AttributedUsReq)
	}
	env, out, errb := testEnv()
	if code := Main(context.Background(), []string{"runs", "show", "--full", "--dir", dir, base.ID}, env); code != 0 {
		t.Fatalf("runs show exited %d: %s", code, errb)
	}
	if !strings.Contains(out.String(), "google.golang.org/protobuf") || !strings.Contains(out.String(), "under your") {
		t.Errorf("the verdict does not name the library under the user's function:\n%s", out)
	} else {
		t.Logf("verdict:\n%s", out)
	}

	// The user says protobuf is theirs: each run keeps that rule, and ab
	// compares by it.
	dir = t.TempDir()
	c = ab(dir, "--user-code", `^google\.golang\.org/protobuf/`)
	top = topGainer(c.Functions, runfmt.ProfileCPU)
	if top == nil || !strings.HasPrefix(top.Function, "google.golang.org/protobuf/") {
		t.Errorf("with --user-code protobuf, top CPU gainer = %+v; want a protobuf function", top)
	}
	for _, f := range c.Functions {
		if f.UserCode && strings.HasPrefix(f.Function, "main.") {
			t.Errorf("with --user-code protobuf, %s listed as user code", f.Function)
		}
	}
}

// startGrpcCache starts grpcapi's upstream and returns its host:port once
// it accepts connections.
func startGrpcCache(t *testing.T) string {
	t.Helper()
	addr := labtest.FreeAddr(t)
	cmd := exec.Command(labtest.BuildService(t, "grpccache"), "-addr", addr, "-pprof-addr", labtest.FreeAddr(t))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	labtest.Eventually(t, 30*time.Second, "grpccache to listen on "+addr, func() bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return addr
}

func firstUserHot(hs []runfmt.HotFunc) *runfmt.HotFunc {
	for i := range hs {
		if hs[i].UserCode {
			return &hs[i]
		}
	}
	return nil
}

// profiledRun returns the newest run named ref in the store at dir that
// has a CPU profile. A run without one must say why in its status (a
// starved service's pprof endpoint can fail to answer in time on a busy
// machine); the test fails when no run has one.
func profiledRun(t *testing.T, dir, ref string) *runfmt.Run {
	t.Helper()
	es, err := store.Store{Root: dir}.Resolve(ref)
	if err != nil || len(es) == 0 {
		t.Fatalf("runs %s in %s: %v", ref, dir, err)
	}
	var why []string
	for i := len(es) - 1; i >= 0; i-- {
		r := es[i].Run
		if r == nil {
			continue
		}
		if _, ok := r.SavedProfile(runfmt.ProfileCPU); ok {
			return r
		}
		if r.Status != runfmt.StatusDegraded || !slices.ContainsFunc(r.Degradations, func(d runfmt.Degradation) bool { return d.Profile == runfmt.ProfileCPU }) {
			t.Errorf("run %s has no CPU profile and does not say why: status %s, degradations %+v", r.ID, r.Status, r.Degradations)
		}
		why = append(why, r.ID+": "+report.DegradedText(r))
	}
	t.Fatalf("no %s run in %s has a CPU profile: %q", ref, dir, why)
	return nil
}
