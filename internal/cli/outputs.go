package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"perflab/internal/files"
	"perflab/internal/report"
	"perflab/internal/runfmt"
)

// reportFormats are the formats of a result that CI systems and reviewers
// read as well as people: run, compare, ab, sweep and bench write them.
var reportFormats = []outputFormat{formatText, formatJSON, formatMarkdown, formatJUnit}

// reportFlags are the outputs of such a result: --format (and --json) for
// stdout, the markdown summary in a file (--md), a JUnit report (--junit).
type reportFlags struct {
	format  *formatFlag
	md      string
	junit   string
	runsURL string
	// page is how much of a run's text the commands that print one
	// (run, demo, show) write.
	page pageFlags
}

// pageFlags choose how much of a run's text verdict is printed: the one
// screen by default, everything it measured (--full), the load's
// hey-style summary before it (--summary).
type pageFlags struct {
	full, summary bool
}

// registerPage adds --full and --summary to cmd.
func (o *reportFlags) registerPage(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&o.page.full, "full", false, "print everything the run measured (the load's summary and histogram, every finding, the per-endpoint table), not the verdict on one screen")
	cmd.Flags().BoolVar(&o.page.summary, "summary", false, "print the load's hey-style summary (histogram, latency distribution, phases, status codes) before the verdict")
}

// register adds --format, --json (with jsonUsage), --md, --junit and
// --runs-url to cmd.
func (o *reportFlags) register(cmd *cobra.Command, jsonUsage string) {
	o.format = addFormatFlag(cmd, jsonUsage, reportFormats...)
	v := flagSet{cmd.Flags()}
	v.checked(&o.md, "md", "", "", "file", outputFile, "also write the markdown summary to `file` (e.g. \"$GITHUB_STEP_SUMMARY\", or a pull request comment's body)")
	v.checked(&o.junit, "junit", "", "", "file", outputFile, "write a JUnit XML report to `file`: one test case per --fail-on rule or --slo objective")
	v.checked(&o.runsURL, "runs-url", "", "", "URL", checkHTTPURL, "in the markdown, link each run to `URL`/ID/report.html (where the run directories are published)")
}

// markdownOptions are the links of the markdown summary: the runs' URL,
// and the CI job when perflab runs in GitHub Actions.
func (o *reportFlags) markdownOptions(env Env, runsDir string) report.MarkdownOptions {
	opt := report.MarkdownOptions{RunsURL: o.runsURL, RunsDir: runsDir}
	server, repo, id := env.getenv("GITHUB_SERVER_URL"), env.getenv("GITHUB_REPOSITORY"), env.getenv("GITHUB_RUN_ID")
	if server != "" && repo != "" && id != "" {
		opt.JobURL = server + "/" + repo + "/actions/runs/" + id
	}
	return opt
}

// junitView renders cases as a JUnit report of suite, timed from the
// command's start.
func (o *reportFlags) junitView(suite string, cases []report.JUnitCase) func(io.Writer) error {
	return func(w io.Writer) error {
		return report.WriteJUnit(w, suite, cases, o.format.start, time.Since(o.format.start))
	}
}

// print writes the result in the chosen format to stdout, then --md and
// --junit: what was measured reaches the terminal first.
func (o *reportFlags) print(env Env, v views) error {
	if err := o.format.write(env.Stdout, v); err != nil {
		return failed(err)
	}
	return o.files(env, v)
}

// comparisonViews renders a comparison (compare, ab, sweep); text is its
// text form.
func (o *reportFlags) comparisonViews(c *runfmt.Comparison, mopt report.MarkdownOptions, text func(io.Writer) error) views {
	suite := "perflab compare"
	if c.Env != "" {
		suite = "perflab sweep " + c.Env
	}
	return views{
		formatText:     text,
		formatJSON:     jsonView(c),
		formatMarkdown: func(w io.Writer) error { return report.WriteCompareMarkdown(w, c, mopt) },
		formatJUnit:    o.junitView(suite, report.ThresholdCases(c)),
	}
}

// runViews renders a run (perflab run, runs show): its JUnit report has
// one case per --slo objective.
func (o *reportFlags) runViews(r *runfmt.Run, dir string, mopt report.MarkdownOptions) views {
	var slo []runfmt.SLOCheck
	if r.Load != nil {
		slo = r.Load.SLO
	}
	return views{
		formatText:     func(w io.Writer) error { return writeRunText(w, r, dir, o.page) },
		formatJSON:     jsonView(r),
		formatMarkdown: func(w io.Writer) error { return report.WriteRunMarkdown(w, r, dir, mopt) },
		formatJUnit:    o.junitView("perflab run "+r.Name, report.SLOCases(slo)),
	}
}

// writeRunText is a run's text verdict: on one screen (the find-max
// steps, the load's summary with --summary, then the page), or with
// --full everything: the headline, the find-max steps, the load's
// summary, the verdict.
func writeRunText(w io.Writer, r *runfmt.Run, dir string, pg pageFlags) error {
	if pg.full {
		if err := report.WriteHeadline(w, r); err != nil {
			return err
		}
	}
	if r.FindMax != nil {
		if err := report.WriteFindMax(w, r, dir, true); err != nil {
			return err
		}
	}
	if r.Load != nil && (pg.full || pg.summary) {
		if err := report.WriteLoadText(w, r.Load); err != nil {
			return err
		}
	}
	if pg.full {
		return report.WriteVerdict(w, r, dir)
	}
	if pg.summary {
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	return report.WriteRunPage(w, r, dir)
}

// files writes --md and --junit.
func (o *reportFlags) files(env Env, v views) error {
	for _, f := range []struct {
		flag, path string
		write      func(io.Writer) error
	}{{"--md", o.md, v[formatMarkdown]}, {"--junit", o.junit, v[formatJUnit]}} {
		if f.path == "" {
			continue
		}
		if err := files.WriteAtomic(f.path, f.write); err != nil {
			return failed(fmt.Errorf("%s: %w", f.flag, err))
		}
		fmt.Fprintf(env.Stderr, "perflab: wrote %s\n", f.path)
	}
	return nil
}
