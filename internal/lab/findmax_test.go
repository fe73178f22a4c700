package lab

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"perflab/internal/runfmt"
)

// TestFindMaxKeepsTheBestStep: a short search (three one-second steps
// that all pass) stores its steps, and as the run's load the best step
// with the service's CPU and memory per second, so report.html draws
// them beside the cards that quote them, under the search's table.
func TestFindMaxKeepsTheBestStep(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: a search of three steps")
	}
	cfg := goService(t, "tolower", "/search?q=oak")
	slo, err := ParseSLO("p99<2000ms")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := FindMax(ctx, cfg, FindMaxConfig{SLO: slo, Step: time.Second, Start: 50, MaxSteps: 3})
	if err != nil {
		t.Fatal(err)
	}
	r := readRun(t, res)
	m := r.FindMax
	if m == nil || len(m.Steps) != 3 || m.MaxRPS <= 0 {
		t.Fatalf("find-max %+v; want 3 steps and a highest rate", m)
	}
	var cpu, rss int
	for _, p := range r.Load.Series {
		if p.CPUCores != nil {
			cpu++
		}
		if p.RSSBytes != nil {
			rss++
		}
	}
	if cpu == 0 || rss == 0 {
		t.Errorf("the best step's series has CPU in %d and RSS in %d of %d seconds; want them measured", cpu, rss, len(r.Load.Series))
	}
	page, err := os.ReadFile(filepath.Join(res.Dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"CPU was not sampled", "memory was not sampled"} {
		if strings.Contains(string(page), bad) {
			t.Errorf("report.html of a find-max run says %q", bad)
		}
	}
	if !strings.Contains(string(page), `<section id="find-max">`) {
		t.Error("report.html of a find-max run has no find-max section")
	}
	if r.Status != runfmt.StatusComplete {
		t.Errorf("status %s (%s); want complete", r.Status, r.PartialReason)
	}
}
