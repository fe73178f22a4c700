package lab

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/prose"
	"perflab/internal/runfmt"
)

// javaNagle is the config of the javanagle service (the JDK's HttpServer
// as deployed, Nagle's algorithm on), started with the JVM's flags.
func javaNagle(t *testing.T, flags ...string) Config {
	t.Helper()
	needCommands(t, "java")
	addr := labtest.FreeAddr(t)
	cmd := append(append([]string{"java"}, flags...), "Server.java", "--addr", addr)
	cfg := acceptanceConfig(t, addr, "/price?sku=1234", cmd...)
	cfg.Dir, cfg.Load.Concurrency, cfg.Warmup, cfg.Load.Duration = frameworkDir(t, "javanagle"), 8, 3*time.Second, 4*time.Second
	return cfg
}

// TestAcceptanceJVMNetworkStallFirst: the JDK's HttpServer with Nagle's
// algorithm on waits ~40 ms a request for the client's delayed ACK and
// works for microseconds. The answer's limit is the network, and finding
// #1 names the stall and the JVM's fix, -Dsun.net.httpserver.nodelay=true,
// and the ledger's network row holds the stall (checkNagleLedger);
// started with that flag, the stall and its finding are gone.
func TestAcceptanceJVMNetworkStallFirst(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs a JVM service under load")
	}
	labtest.RequireRoot(t, "the kernel's timing (eBPF) and cgroups")
	r, _ := runAcceptance(t, javaNagle(t))
	checkNagleLedger(t, r)
	limit := r.Answer.First()
	t.Logf("limit %s %+v; doubts %v; CPU %.3f ms/request; ledger %s; findings:%s", limit.Kind, limit.Figures, r.Answer.Doubts,
		r.Target.CPUMsPerRequest, ledgerRows(r), describeFindings(r.Findings))
	if limit.Kind != runfmt.LimitNetwork {
		t.Errorf("limit %s; want the network (the ledger's rows %s)", limit.Kind, ledgerRows(r))
	}
	if len(r.Findings) == 0 || r.Findings[0].Kind != runfmt.FindingNetworkStall {
		t.Fatalf("findings %v; want the network stall first", kinds(r.Findings))
	}
	f := r.Findings[0]
	w := prose.Wording(&f)
	text := w.Title.Text() + "\n" + w.Detail.Text()
	for _, want := range []string{"Nagle's algorithm", "delayed ACK", "-Dsun.net.httpserver.nodelay=true"} {
		if !strings.Contains(text, want) {
			t.Errorf("finding #1 lacks %q:\n%s", want, text)
		}
	}
	if us, lat := f.Figures[runfmt.FigWaitPerRequest], f.Payoff[runfmt.FigLatency]; us < 0.5*1000*r.Load.Latency.Mean || lat < us {
		t.Errorf("stall %.0f µs/request, payoff %v; want most of the %.1f ms mean latency, and saved", us, f.Payoff, r.Load.Latency.Mean)
	}

	fixed, _ := runAcceptance(t, javaNagle(t, "-Dsun.net.httpserver.nodelay=true"))
	t.Logf("fixed: latency %.2f ms; limit %s; findings:%s", fixed.Load.Latency.Mean, fixed.Answer.First().Kind, describeFindings(fixed.Findings))
	if slices.ContainsFunc(fixed.Findings, func(f runfmt.Finding) bool { return f.Kind == runfmt.FindingNetworkStall }) || fixed.Answer.First().Kind == runfmt.LimitNetwork {
		t.Errorf("with -Dsun.net.httpserver.nodelay=true: limit %s, findings %v; want no stall", fixed.Answer.First().Kind, kinds(fixed.Findings))
	}
	if row := ledgerOf(t, fixed).Time.Row(runfmt.PartNetwork); row == nil {
		t.Errorf("no network row with TCP_NODELAY: rows %s", ledgerRows(fixed))
	} else if ms, _ := row.Ms(); ms > 0.2*f.Figures[runfmt.FigWaitPerRequest]/1000 {
		t.Errorf("network row %.2f ms with TCP_NODELAY, a %.2f ms stall without: want the stall gone", ms, f.Figures[runfmt.FigWaitPerRequest]/1000)
	}
}

// ledgerRows are the time account's rows in a failure's words.
func ledgerRows(r *runfmt.Run) string {
	if r.Ledger == nil || r.Ledger.Time == nil {
		return "none"
	}
	var b strings.Builder
	for _, row := range r.Ledger.Time.Rows {
		if ms, ok := row.Ms(); ok {
			fmt.Fprintf(&b, "%s %.2f ms, ", row.Part, ms)
		}
	}
	return strings.TrimSuffix(b.String(), ", ")
}

// TestAcceptanceJVMCulpritLineStable: javapattern (its responses sent
// with TCP_NODELAY) compiles a 240 KB pattern in Server.summarize on
// every request. In 3 of 3 runs that method is finding #1, its first
// line the line of the Pattern.compile call (not the method's
// declaration), the rank certain (no few-samples doubt), and the
// profile holds java.util.regex.Pattern.compile under that line, the
// frame a rule about constructors reads.
func TestAcceptanceJVMCulpritLineStable(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs a JVM service under load three times")
	}
	line := javaLineOf(t, "../../testdata/services/javapattern/Server.java", "Pattern p = buggy ? Pattern.compile(")
	for i := range 3 {
		cfg := javaService(t, "buggy")
		cfg.Load.Duration, cfg.Warmup = 4*time.Second, 2*time.Second
		r, dir := runAcceptance(t, cfg)
		t.Logf("run %d: limit %s; doubts %v; %d CPU samples; findings:%s", i+1, r.Answer.First().Kind, r.Answer.Doubts, cpuSampleCount(r), describeFindings(r.Findings))
		if slices.ContainsFunc(r.Profiling.Notes, func(n string) bool { return strings.Contains(n, "async-profiler is not installed") }) {
			t.Skip("async-profiler not installed (.ci/setup installs it): perf gives no Java lines")
		}
		rank, f := plantedRank(r.Findings, "Server.summarize")
		if rank != 1 {
			t.Errorf("run %d: Server.summarize ranked %d; want #1", i+1, rank)
		}
		if len(f.Lines) == 0 || f.Lines[0].Line != line || f.Lines[0].File != "Server.java" {
			t.Errorf("run %d: Server.summarize's lines %+v; want Server.java:%d, the Pattern.compile call, first", i+1, f.Lines, line)
		}
		for _, d := range r.Answer.Doubts {
			if d.Kind == runfmt.DoubtFewSamples {
				t.Errorf("run %d: the rank is in doubt with %v samples: the sampling rate gives too few", i+1, d.Figures[runfmt.FigCount])
			}
		}
		if n := compileUnder(t, r, dir, line); n == 0 {
			t.Errorf("run %d: no sample of java.util.regex.Pattern.compile called from Server.summarize at line %d", i+1, line)
		}
	}
}

// javaLineOf is the number of the first line of file holding text.
func javaLineOf(t *testing.T, file, text string) int64 {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, text) {
			return int64(i + 1)
		}
	}
	t.Fatalf("%s has no line with %q", file, text)
	return 0
}

// cpuSampleCount is the run's CPU profile's sample count.
func cpuSampleCount(r *runfmt.Run) int64 {
	for _, p := range r.Profiles {
		if p.Type == runfmt.ProfileCPU {
			return p.Samples
		}
	}
	return 0
}

// compileUnder counts the CPU profile's samples in which
// java.util.regex.Pattern.compile is called from Server.summarize at
// line.
func compileUnder(t *testing.T, r *runfmt.Run, dir string, line int64) int64 {
	t.Helper()
	var n int64
	for _, s := range runProfile(t, r, dir).Sample {
		for i := 1; i < len(s.Location); i++ {
			callee, caller := s.Location[i-1].Line, s.Location[i].Line
			if len(callee) == 0 || len(caller) == 0 || callee[len(callee)-1].Function == nil || caller[0].Function == nil {
				continue
			}
			if callee[len(callee)-1].Function.Name == "java.util.regex.Pattern.compile" && caller[0].Function.Name == "Server.summarize" && caller[0].Line == line {
				n += s.Value[0]
				break
			}
		}
	}
	return n
}
