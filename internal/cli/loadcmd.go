package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"perflab/internal/files"
	"perflab/internal/load"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// outputFlags choose where a load's result goes.
type outputFlags struct {
	format *formatFlag
	out    string
	quiet  bool
}

func newLoadCmd(env Env) *cobra.Command {
	lf := newLoadFlags()
	var of outputFlags
	var sloSpec string
	cmd := &cobra.Command{
		Use:   "load [flags] URL [URL...]",
		Short: "Drive HTTP load at URLs and summarise latency, throughput and errors",
		Long: `Drive HTTP load at one or more URLs (round robin) and print a hey-style
summary: totals, response-time histogram, latency distribution from an HDR
histogram, per-phase timings, status codes and errors by kind.

Closed model (default): -c workers each with a keep-alive connection, for -d or
-n requests, optionally capped at -q requests/s per worker.
Open model: --rate or --stages schedule arrivals independently of the
service; each latency is measured from its intended start time (no coordinated
omission), and arrivals that could not be sent on time are counted.`,
		Example: `  perflab load -c 50 -d 10s http://127.0.0.1:8080/
  perflab load --rate 2000 -d 30s http://127.0.0.1:8080/api
  perflab load --stages 30s:10,3m:100,30s:0 http://127.0.0.1:8080/
  perflab load --rate 1000 --shard 2/4 --json --out shard2.json http://10.0.0.5/
  perflab load --rate 500 -d 30s --slo "p99<50ms,errors<0.1%" http://127.0.0.1:8080/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := lf.config(args)
			if err != nil {
				return err
			}
			slo, err := parseSLO(sloSpec)
			if err != nil {
				return err
			}
			res, err := runLoad(cmd.Context(), env, cfg, of.quiet)
			if err != nil {
				return err
			}
			if len(slo) > 0 {
				res.SLO = slo.Evaluate(res)
			}
			if err := writeLoad(env, res, of); err != nil {
				return err
			}
			return sloExit(res.SLO, "the load")
		},
	}
	cmd.Flags().AddFlagSet(lf.fs)
	registerOutput(cmd, &of)
	flagSet{cmd.Flags()}.checked(&sloSpec, "slo", "", "", "slo", checkSLO, "objectives checked at the end, exit 4 when one is missed: `METRIC<LIMIT,...` (p50..p999, max, mean in ms; errors in %)")
	return cmd
}

func registerOutput(cmd *cobra.Command, of *outputFlags) {
	of.format = addFormatFlag(cmd, "print the result as JSON instead of text", formatText, formatJSON)
	flagSet{cmd.Flags()}.checked(&of.out, "out", "o", "", "file", outputFile, "also write the JSON result to `file`")
	cmd.Flags().BoolVar(&of.quiet, "quiet", false, "no progress output")
}

// runLoad runs a load with progress on stderr.
func runLoad(ctx context.Context, env Env, cfg load.Config, quiet bool) (*runfmt.LoadResult, error) {
	a, err := load.New(cfg)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	var prog *progress
	if !quiet {
		prog = startProgress(env, a)
	}
	res := a.Run(ctx)
	prog.stop()
	return res, nil
}

// writeLoad prints the result and writes --out (printLoad); an
// interrupted load then exits with ExitInterrupted.
func writeLoad(env Env, res *runfmt.LoadResult, of outputFlags) error {
	if err := printLoad(env, res, of); err != nil {
		return err
	}
	if res.Interrupted {
		return &silentExit{code: ExitInterrupted}
	}
	if res.Requests == 0 && res.Unfinished > 0 {
		return failed(fmt.Errorf("no request finished: %d were still in flight when the load ended, the oldest for %s (the service does not answer within -d)",
			res.Unfinished, units.FormatMs(res.UnfinishedOldestMs)))
	}
	if res.Requests > 0 && res.Errors == res.Requests {
		return failed(fmt.Errorf("no request succeeded: all %d failed (%s)", res.Requests, kindCounts(res.ErrorKinds)))
	}
	return nil
}

// kindCounts words error counts, the most frequent first: "90 refused,
// 10 timeout".
func kindCounts(kinds map[string]int64) string {
	names := slices.Collect(maps.Keys(kinds))
	slices.SortFunc(names, func(a, b string) int {
		if c := cmp.Compare(kinds[b], kinds[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%d %s", kinds[k], k)
	}
	return strings.Join(parts, ", ")
}

// printLoad prints the result, then writes --out: what was measured
// reaches the terminal even when the file cannot be written.
func printLoad(env Env, res *runfmt.LoadResult, of outputFlags) error {
	err := of.format.write(env.Stdout, views{
		formatText: func(w io.Writer) error { return writeLoadText(w, res) },
		formatJSON: jsonView(res),
	})
	if err != nil {
		return failed(err)
	}
	if of.out != "" {
		if err := writeJSONFile(of.out, res); err != nil {
			return failed(fmt.Errorf("--out: %w (the result is printed above)", err))
		}
	}
	return nil
}

// writeLoadText is a load's text summary, with its --slo objectives.
func writeLoadText(w io.Writer, res *runfmt.LoadResult) error {
	if err := report.WriteLoadText(w, res); err != nil {
		return err
	}
	if len(res.SLO) == 0 {
		return nil
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	return report.WriteSLO(w, res.SLO)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeJSONFile writes v as indented JSON to path, atomically.
func writeJSONFile(path string, v any) error {
	return files.WriteAtomic(path, func(w io.Writer) error { return writeJSON(w, v) })
}
