package lab

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
)

// shortConfig is a half-second run of the test binary as a service.
func shortConfig(t *testing.T) Config {
	cfg := testConfig(t, labtest.FreeAddr(t))
	cfg.Load.Duration = 500 * time.Millisecond
	return cfg
}

func TestABInterleaves(t *testing.T) {
	base := shortConfig(t)
	base.Name = "svc"
	new := base
	new.Env = append(slices.Clone(base.Env), "BUILD=new")
	var order []string
	b, n, err := AB(context.Background(), base, new, 2, func(arm string, rep int, res *Result, err error) {
		order = append(order, fmt.Sprintf("%s%d:%s", arm, rep, res.Run.Name))
		if err != nil {
			t.Errorf("%s run %d: %v", arm, rep, err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"base0:svc-base", "new0:svc-new", "base1:svc-base", "new1:svc-new"}
	if !slices.Equal(order, want) {
		t.Errorf("order %q; want %q", order, want)
	}
	if len(b) != 2 || len(n) != 2 {
		t.Fatalf("AB returned %d base and %d new runs; want 2 and 2", len(b), len(n))
	}
	if got := readRun(t, n[1]).Config.Env["BUILD"]; got != "new" {
		t.Errorf("new run's BUILD = %q; want new (its own config)", got)
	}
	if _, ok := readRun(t, b[0]).Config.Env["BUILD"]; ok {
		t.Errorf("base run has BUILD set: base and new configs mixed")
	}
}

func TestABStopsOnCancel(t *testing.T) {
	cfg := shortConfig(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runs := 0
	b, n, err := AB(ctx, cfg, cfg, 5, func(arm string, rep int, res *Result, err error) {
		if runs++; runs == 3 {
			cancel() // as if Ctrl-C came after the third run finished
		}
	})
	if !errors.Is(err, context.Canceled) || len(b) != 2 || len(n) != 1 || runs != 3 {
		t.Errorf("AB cancelled after 3 runs = %d base, %d new, %d runs, %v; want 2, 1, 3, context.Canceled", len(b), len(n), runs, err)
	}
}

func TestABCancelledMidRunFinishesIt(t *testing.T) {
	cfg := shortConfig(t)
	cfg.Load.Duration = 2 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(1500*time.Millisecond, cancel) // during the first run
	b, n, err := AB(ctx, cfg, cfg, 3, nil)
	if !errors.Is(err, context.Canceled) || len(b) != 1 || len(n) != 0 {
		t.Fatalf("cancelled during the first run: %d+%d runs, %v; want that run finished and kept, no other", len(b), len(n), err)
	}
	if r := b[0].Run; r.Status != "complete" || r.Load.Interrupted {
		t.Errorf("the run under way was cut short: status %s, interrupted %v", r.Status, r.Load.Interrupted)
	}
}

func TestABStopsWhenServiceFails(t *testing.T) {
	base := shortConfig(t)
	new := base
	new.Command = []string{"/nonexistent/perflab-new-build"}
	b, n, err := AB(context.Background(), base, new, 3, nil)
	if err == nil || !strings.Contains(err.Error(), "new run 1 of 3") || len(b) != 1 || len(n) != 0 {
		t.Errorf("AB with a broken new build = %d, %d, %v; want 1 base run and an error naming the new run", len(b), len(n), err)
	}
}

func TestSweepRoundRobin(t *testing.T) {
	cfg := shortConfig(t)
	cfg.Name = "svc"
	cfg.Env = append(cfg.Env, "GOGC=50")
	var order []string
	groups, err := Sweep(context.Background(), cfg, "GOGC", []string{"100", "400"}, 2, func(arm string, rep int, res *Result, err error) {
		order = append(order, arm+":"+res.Run.Name)
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"100:svc-GOGC-100", "400:svc-GOGC-400", "100:svc-GOGC-100", "400:svc-GOGC-400"}
	if !slices.Equal(order, want) || len(groups) != 2 || len(groups[0]) != 2 || len(groups[1]) != 2 {
		t.Fatalf("order %q groups %d; want %q in 2 groups of 2", order, len(groups), want)
	}
	for i, v := range []string{"100", "400"} {
		if got := readRun(t, groups[i][1]).Config.Env["GOGC"]; got != v {
			t.Errorf("group %d: GOGC = %q; want %q (replacing the fixed 50)", i, got, v)
		}
	}
}

func TestSweepRejectsBadInput(t *testing.T) {
	cfg := shortConfig(t)
	for _, tc := range []struct {
		env    string
		values []string
		runs   int
		want   string
	}{
		{"", []string{"1"}, 1, "want a name"},
		{"A=B", []string{"1"}, 1, "want a name"},
		{"GOGC", nil, 1, "no values"},
		{"GOGC", []string{"1"}, 0, "want at least 1"},
	} {
		if _, err := Sweep(context.Background(), cfg, tc.env, tc.values, tc.runs, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Sweep(%q, %q, %d) = %v; want %q", tc.env, tc.values, tc.runs, err, tc.want)
		}
	}
}
