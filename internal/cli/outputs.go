package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"perflab/internal/files"
	"perflab/internal/report"
	"perflab/internal/runfmt"
)

// Output formats of --format.
const (
	formatText     = "text"
	formatMarkdown = "markdown"
	formatJSON     = "json"
)

// reportFlags are the outputs CI systems and reviewers read: --format for
// stdout, the markdown summary in a file (--md), a JUnit report (--junit).
type reportFlags struct {
	format  string
	md      string
	junit   string
	runsURL string
	start   time.Time
}

func (o *reportFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.format, "format", formatText, "what stdout gets: text, markdown (GitHub-flavoured: the verdict in one line, the tables, under 60 KiB) or json (as --json)")
	v := flagSet{fs}
	v.checked(&o.md, "md", "", "", "file", outputFile, "also write the markdown summary to `file` (e.g. \"$GITHUB_STEP_SUMMARY\", or a pull request comment's body)")
	v.checked(&o.junit, "junit", "", "", "file", outputFile, "write a JUnit XML report to `file`: one test case per --fail-on rule or --slo objective")
	v.checked(&o.runsURL, "runs-url", "", "", "URL", checkHTTPURL, "in the markdown, link each run to `URL`/ID/report.html (where the run directories are published)")
}

// resolve checks the flags before any work: the format and --json beside
// it.
func (o *reportFlags) resolve(asJSON bool) error {
	if o == nil {
		return nil
	}
	o.start = time.Now()
	switch strings.ToLower(o.format) {
	case formatText, "":
		o.format = formatText
	case formatMarkdown, "md", "gfm":
		o.format = formatMarkdown
	case formatJSON:
		o.format = formatJSON
	default:
		return usageErr("--format %q: want text, markdown or json", o.format)
	}
	if asJSON {
		if o.format == formatMarkdown {
			return usageErr("--json and --format markdown both set what stdout gets: give one (--md FILE writes the markdown beside the JSON)")
		}
		o.format = formatJSON
	}
	return nil // --md and --junit were checked when parsed (outputFile)
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

// comparison prints a comparison (compare, ab, sweep) in the chosen format
// and writes the markdown and JUnit files.
func (o *reportFlags) comparison(env Env, c *runfmt.Comparison, mopt report.MarkdownOptions, text func(io.Writer) error) error {
	var err error
	switch o.format {
	case formatJSON:
		err = writeJSON(env.Stdout, c)
	case formatMarkdown:
		err = report.WriteCompareMarkdown(env.Stdout, c, mopt)
	default:
		err = text(env.Stdout)
	}
	if err != nil {
		return failed(err)
	}
	suite := "perflab compare"
	if c.Env != "" {
		suite = "perflab sweep " + c.Env
	}
	return o.files(env,
		func(w io.Writer) error { return report.WriteCompareMarkdown(w, c, mopt) },
		func(w io.Writer) error {
			return report.WriteJUnit(w, suite, report.ThresholdCases(c), o.start, time.Since(o.start))
		})
}

// runFiles writes a run's --md and --junit (one case per --slo objective).
func (o *reportFlags) runFiles(env Env, r *runfmt.Run, dir, runsDir string) error {
	var slo []runfmt.SLOCheck
	if r.Load != nil {
		slo = r.Load.SLO
	}
	return o.files(env,
		func(w io.Writer) error { return report.WriteRunMarkdown(w, r, dir, o.markdownOptions(env, runsDir)) },
		func(w io.Writer) error {
			return report.WriteJUnit(w, "perflab run "+r.Name, report.SLOCases(slo), o.start, time.Since(o.start))
		})
}

// files writes --md and --junit.
func (o *reportFlags) files(env Env, md, junit func(io.Writer) error) error {
	for _, f := range []struct {
		flag, path string
		write      func(io.Writer) error
	}{{"--md", o.md, md}, {"--junit", o.junit, junit}} {
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
