package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"perflab/internal/labtest"

	"perflab/internal/runfmt"
)

func TestSweepCmd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 4 real runs (~10 s)")
	}
	labtest.RequireRoot(t, "sweep runs the service under a --cpus budget (cgroups)")
	bin := labtest.BuildService(t, "tolower")
	api, pp := labtest.FreeAddr(t), labtest.FreeAddr(t)
	env, out, errb := testEnv()
	pgo := filepath.Join(t.TempDir(), "default.pgo")
	code := Main(context.Background(), []string{"sweep", "--json", "--dir", t.TempDir(), "--pgo", pgo, "--pgo-value", "off",
		"--env", "GOGC=25,off", "--env", "TZ=UTC", "--runs", "2", "-d", "1s", "--warmup", "0", "--cpus", "1", "-c", "2",
		"--pprof", "http://" + pp, "http://" + api + "/search?q=oak",
		"--", bin, "-addr", api, "-pprof-addr", pp, "-mode=fixed"}, env)
	if code != 0 {
		t.Fatalf("perflab sweep exited %d\n%s", code, errb)
	}
	var s runfmt.Comparison
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		t.Fatalf("sweep --json: %v\n%s", err, out)
	}
	if s.Env != "GOGC" || len(s.Values) != 2 || len(s.Comparisons) != 1 || s.Comparisons[0].New.Label != "GOGC=off" {
		t.Fatalf("sweep = %+v; want GOGC 25 vs off in one comparison", s)
	}
	// One shape with compare and ab: the top level is a comparison too.
	if len(s.Metrics) == 0 || s.Base.Label != "GOGC=25" || s.New.Label != "GOGC=off" || s.Verdict == nil {
		t.Errorf("sweep's top level = base %q new %q, %d metrics, verdict %v; want the comparison of the first value with the last",
			s.Base.Label, s.New.Label, len(s.Metrics), s.Verdict)
	}
	for _, w := range s.Comparisons[0].Warnings {
		if strings.Contains(w, "GOGC") {
			t.Errorf("warning about the swept variable: %q", w)
		}
	}
	if _, err := os.Stat(pgo); err != nil || !strings.Contains(errb.String(), "from 2 runs of GOGC=off") {
		t.Errorf("--pgo --pgo-value off: %v; stderr:\n%s\nwant the profile of GOGC=off's 2 runs", err, errb)
	}
}

func TestSweepCmdBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "http://127.0.0.1:1/", "--", "x"}, "give the variable to sweep"},
		{[]string{"sweep", "--env", "GOGC=100", "http://127.0.0.1:1/", "--", "x"}, "at least two values"},
		{[]string{"sweep", "--env", "GOGC=100,,200", "http://127.0.0.1:1/", "--", "x"}, "empty value"},
		{[]string{"sweep", "--env", "=1,2", "http://127.0.0.1:1/", "--", "x"}, "--env =1,2: want KEY=VALUE"},
		{[]string{"sweep", "--env", "GOGC=1,2", "http://127.0.0.1:1/"}, "give its command after --"},
		{[]string{"ab", "--base", "x", "--new", "'y", "http://127.0.0.1:1/"}, "unterminated"},
		{[]string{"ab", "--new", "y", "http://127.0.0.1:1/"}, "--base: give the command line"},
		{[]string{"ab", "--base", "x", "--new", "y", "http://127.0.0.1:1/", "--", "z"}, "not after --"},
	} {
		code, _, errb := runMain(t, tc.args...)
		if code != int(ExitUsage) || !strings.Contains(errb, tc.want) {
			t.Errorf("perflab %q: exit %d %q; want 2 and %q", tc.args, code, errb, tc.want)
		}
	}
}
