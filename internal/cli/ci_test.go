package cli

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"perflab/internal/labtest"
)

// workflow is the part of a GitHub Actions workflow the recipe test reads.
type workflow struct {
	On   map[string]any `yaml:"on"`
	Jobs map[string]struct {
		RunsOn string            `yaml:"runs-on"`
		Env    map[string]string `yaml:"env"`
		Steps  []struct {
			ID   string         `yaml:"id"`
			Uses string         `yaml:"uses"`
			Run  string         `yaml:"run"`
			With map[string]any `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// TestCIRecipe runs the perflab step of examples/ci/perflab.yml, as the
// workflow's shell would, against a temporary repository whose second
// commit doubles the checksum service's CPU per request: the step must
// fail (exit 1) with a job summary that names the regression and the
// function, and a JUnit report with the failed rule; with the revisions
// swapped it must pass (exit 0). Nothing may be left behind either way.
func TestCIRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds perflab and runs 2 × 8 real runs (~90 s)")
	}
	labtest.RequireRoot(t, "the recipe runs the service under --cpus 1 (cgroups)")
	data, err := os.ReadFile("../../examples/ci/perflab.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("examples/ci/perflab.yml is not valid YAML: %v", err)
	}
	job, ok := wf.Jobs["perflab"]
	if _, pr := wf.On["pull_request"]; !ok || !pr || job.RunsOn == "" {
		t.Fatalf("the workflow has no perflab job on pull_request: %+v", wf)
	}
	var script string
	for _, s := range job.Steps {
		if s.ID == "perflab" {
			script = s.Run
		}
		if strings.HasPrefix(s.Uses, "actions/checkout") && s.With["fetch-depth"] != 2 && s.With["fetch-depth"] != 0 {
			t.Errorf("checkout fetches depth %v: HEAD~1 needs 2 (or 0)", s.With["fetch-depth"])
		}
	}
	if !strings.Contains(script, "perflab ab --git") {
		t.Fatalf("no step with id perflab running perflab ab --git:\n%s", data)
	}
	bin := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "perflab"), "perflab/cmd/perflab").CombinedOutput(); err != nil {
		t.Fatalf("go build perflab: %v\n%s", err, out)
	}
	repo := checksumRepo(t)
	tmp := privateTemp(t)
	for _, tc := range []struct {
		git     string
		code    int
		summary []string
	}{
		{job.Env["PERFLAB_GIT"], 1, []string{"❌", "**Regression**", "cpu\\_per\\_request\\>+10%", "`main.checksum`", "hash twice as much"}},
		// Swapped: passes; the verdict line may say ⚠️ on a busy machine.
		{"HEAD..HEAD~1", 0, []string{"`cpu_per_request>+10%` | \\-", "✅ passed"}},
	} {
		out := t.TempDir()
		cmd := exec.Command("bash", "-e", "-c", script)
		cmd.Dir = repo
		cmd.Env = os.Environ()
		for k, v := range job.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.Env = append(cmd.Env, "PATH="+bin+":"+os.Getenv("PATH"), "PERFLAB_GIT="+tc.git, "PERFLAB_RUNS=4",
			"PERFLAB_ADDR="+labtest.FreeAddr(t), "PERFLAB_PPROF="+labtest.FreeAddr(t),
			"GITHUB_STEP_SUMMARY="+filepath.Join(out, "summary.md"))
		start := time.Now()
		stdio, _ := cmd.CombinedOutput()
		code := cmd.ProcessState.ExitCode()
		t.Logf("--git %s: exit %d in %s", tc.git, code, time.Since(start).Round(time.Second))
		if code != tc.code {
			t.Errorf("--git %s: the step exited %d; want %d\n%s", tc.git, code, tc.code, stdio)
		}
		summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
		if err != nil {
			t.Fatalf("--git %s: no job summary: %v\n%s", tc.git, err, stdio)
		}
		for _, w := range tc.summary {
			if !strings.Contains(string(summary), w) {
				t.Errorf("--git %s: the job summary lacks %q:\n%s", tc.git, w, summary)
			}
		}
		var junit struct {
			Suites []struct {
				Failures int `xml:"failures,attr"`
				Cases    []struct {
					Name string `xml:"name,attr"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		raw, err := os.ReadFile(filepath.Join(repo, "perflab-junit.xml"))
		if err != nil || xml.Unmarshal(raw, &junit) != nil || len(junit.Suites) != 1 || len(junit.Suites[0].Cases) != 1 ||
			junit.Suites[0].Failures != tc.code || junit.Suites[0].Cases[0].Name != job.Env["PERFLAB_FAIL_ON"] {
			t.Errorf("--git %s: JUnit report %s (%v); want one case, %s, failed %d", tc.git, raw, err, job.Env["PERFLAB_FAIL_ON"], tc.code)
		}
		if l := leftovers(t, repo, tmp); len(l) > 0 {
			t.Errorf("--git %s: left behind: %q", tc.git, l)
		}
	}
}
