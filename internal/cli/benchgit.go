package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"perflab/internal/compare"
	"perflab/internal/gobench"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// runBenchGit is perflab bench --git: both revisions benchmarked
// interleaved, then compared.
func runBenchGit(ctx context.Context, env Env, bf *benchFlags, cfg gobench.Config) error {
	rules, err := compare.ParseBenchFailOn(bf.failOn)
	if err != nil {
		return usageErr("%v", err)
	}
	g := gobench.GitConfig{RepoDir: bf.repo, Range: bf.git.r, Uncommitted: bf.uncommitted, DefaultBranch: env.getenv("GITHUB_BASE_REF")}
	stopNote := context.AfterFunc(ctx, func() {
		fmt.Fprintln(env.Stderr, "perflab: stopping; what completed is written and compared, the worktrees are removed")
	})
	defer stopNote()
	res, err := gobench.RunGit(ctx, cfg, g)
	if res == nil || res.Base == nil || res.New == nil {
		return benchErr(env, ctx, err)
	}
	c := compare.Bench(res.Base.Run, res.New.Run, rules)
	if perr := printBenchComparison(env, &bf.out, bf.dir, c); perr != nil {
		return perr
	}
	if err != nil {
		return benchErr(env, ctx, err)
	}
	return benchRegression(env, c)
}

// printBenchComparison prints a comparison of benchmark runs in the
// chosen format and writes --md and --junit.
func printBenchComparison(env Env, out *reportFlags, runsDir string, c *runfmt.BenchComparison) error {
	mopt := out.markdownOptions(env, runsDir)
	return out.print(env, views{
		formatText:     func(w io.Writer) error { return report.WriteBenchCompareText(w, c) },
		formatJSON:     jsonView(c),
		formatMarkdown: func(w io.Writer) error { return report.WriteBenchCompareMarkdown(w, c, mopt) },
		formatJUnit:    out.junitView("perflab bench", report.BenchCheckCases(c)),
	})
}

// benchRegression exits 1 when a --fail-on rule was crossed.
func benchRegression(env Env, c *runfmt.BenchComparison) error {
	if len(c.Failed) == 0 {
		return nil
	}
	fmt.Fprintf(env.Stderr, "perflab: --fail-on: %s regressed significantly beyond the threshold\n", joinMax(c.Failed, 5))
	return &silentExit{code: ExitRegression}
}

// compareBench is perflab compare of two benchmark runs (one a side), as
// the UI compares them (compare.BenchGroups).
func compareBench(env Env, base, new []store.Entry, cf compareFlags) error {
	if cf.failOn != "" {
		return usageErr("--fail-on %s: on benchmark runs, give benchmark units with perflab bench --git (e.g. \"ns/op>+5%%\")", cf.failOn)
	}
	c, err := compare.BenchGroups(base, new, nil)
	if err != nil {
		return usageErr("%s", strings.TrimPrefix(err.Error(), compare.ErrIncomparable.Error()+": "))
	}
	return printBenchComparison(env, &cf.out, cf.runsDir, c)
}
