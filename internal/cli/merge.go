package cli

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"perflab/internal/files"
	"perflab/internal/load"
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

func newMergeCmd(env Env) *cobra.Command {
	var of outputFlags
	cmd := &cobra.Command{
		Use:   "merge SHARD.json [SHARD.json...]",
		Short: "Combine the JSON results of load shards into one (exact percentiles)",
		Long: `Combine results written by 'perflab load --shard i/N --json --out FILE' into
one result. Counts add up, and latency percentiles come from the merged HDR
histograms, so they are exact, not averages of percentiles.`,
		Args: positional("SHARD.json..."),
		RunE: func(cmd *cobra.Command, args []string) error {
			var parts []*runfmt.LoadResult
			for _, path := range args {
				r, err := readLoadResult(path)
				if err != nil {
					return usageErr("%v", err)
				}
				parts = append(parts, r)
			}
			merged, err := load.Merge(parts)
			if err != nil {
				return usageErr("merging: %v", err)
			}
			if d := load.StartSpread(parts); d > time.Second {
				fmt.Fprintf(env.Stderr, "perflab: the shards started up to %s apart: their per-second series are added by their start times, to the nearest second (give them one --start-at to start them together)\n", units.FormatDuration(d.Round(100*time.Millisecond)))
			}
			return printLoad(env, merged, of)
		},
	}
	of.format = addFormatFlag(cmd, "print the merged result as JSON", formatText, formatJSON)
	flagSet{cmd.Flags()}.checked(&of.out, "out", "o", "", "file", outputFile, "also write the merged JSON to `file`")
	return cmd
}

// readLoadResult reads a `perflab load --json` file (or a run.json's load).
// maxLoadResultFile bounds a shard's result (its series and histogram take
// a few KB a second).
const maxLoadResultFile = 256 << 20

func readLoadResult(path string) (*runfmt.LoadResult, error) {
	b, err := files.ReadFile(path, maxLoadResultFile)
	if err != nil {
		return nil, err
	}
	var probe struct {
		SchemaVersion int                `json:"schema_version"`
		Load          *runfmt.LoadResult `json:"load"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("%s: not a perflab JSON result: %v", path, err)
	}
	if probe.SchemaVersion > 0 && probe.Load != nil {
		return probe.Load, nil
	}
	var r runfmt.LoadResult
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: not a perflab load result: %v", path, err)
	}
	if r.Histogram == "" {
		return nil, fmt.Errorf("%s: no hdr_histogram field: not a perflab load result", path)
	}
	return &r, nil
}
