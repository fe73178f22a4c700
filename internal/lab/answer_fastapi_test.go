package lab

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// TestAcceptanceFastAPISyncWaits: a FastAPI def endpoint, run in the
// framework's threadpool, sleeps 30 ms and then calls a 40 ms peer once,
// through an httpx.Client whose pool keeps the connections the readiness
// probe and the warm-up opened. The ledger counts one answer of the peer
// per request, its sleep row holds the sleep, and the first finding is
// one of those waits, at the line of the service that waits.
func TestAcceptanceFastAPISyncWaits(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs a FastAPI service and its peer under load for seconds")
	}
	labtest.RequireRoot(t, "the kernel's timing (eBPF) and cgroups")
	peer := startPeer(t, "slowpeer", "-delay", "40ms")
	r, dir := runAcceptance(t, fastAPIConfig(t, peer.addr, "/nap-quote"))
	l := ledgerOf(t, r)
	t.Logf("limit %+v; findings:%s", r.Answer.First(), describeFindings(r.Findings))
	// The truth, as the service counted its own calls and naps.
	if calls, naps := stopwatchCount(t, dir, "downstream calls (sync)"), stopwatchCount(t, dir, "naps"); calls != naps {
		t.Fatalf("the service made %d calls to its peer in %d naps; want one of each per request", calls, naps)
	}
	if p := l.Time.Row(runfmt.PartDownstream).Peer; p == nil || math.Abs(p.AnswersPerRequest-1) > 0.1 {
		t.Errorf("downstream peer %+v; want 1.00 ± 0.1 answers per request", p)
	}
	sleep, nap := partMs(t, l, runfmt.PartSleep), measured(t, dir, "naps")
	t.Logf("sleep row %.3f ms; the service timed its naps at %.3f ms", sleep, nap)
	if sleep < 0.9*30 || sleep > 1.1*nap {
		t.Errorf("sleep row %.3f ms; want the 30 ms nap: at least 27 ms, at most 1.1 × the %.3f ms the service timed", sleep, nap)
	}
	if len(r.Findings) == 0 {
		t.Fatal("no findings")
	}
	f := r.Findings[0]
	waitLine := map[runfmt.FindingKind]string{
		runfmt.FindingDownstreamWait: `CLIENTS["sync"].get(peer_url())`,
		runfmt.FindingSleep:          "time.sleep(NAP_SECONDS)",
	}
	line, ok := waitLine[f.Kind]
	if !ok {
		t.Fatalf("finding #1 is [%s] %s; want the downstream wait or the sleep", f.Kind, title(f))
	}
	if len(f.Lines) == 0 || !strings.Contains(f.Lines[0].Text, line) || filepath.Base(f.Lines[0].File) != "app.py" {
		t.Errorf("finding #1 [%s] lines %+v; want app.py's %s first", f.Kind, f.Lines, line)
	}
}

// stopwatchCount is the number of waits a service's stopwatch line
// ("NAME: N waits, mean X ms") counted, read from the run's target.log.
func stopwatchCount(t *testing.T, dir, name string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "target.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		var n int
		var ms float64
		if rest, ok := strings.CutPrefix(line, name+": "); ok {
			if _, err := fmt.Sscanf(rest, "%d waits, mean %f ms", &n, &ms); err == nil {
				return n
			}
		}
	}
	t.Fatalf("target.log has no %q line:\n%s", name, b)
	return 0
}
