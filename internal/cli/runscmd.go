package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"perflab/internal/report"
	"perflab/internal/store"
)

func newRunsCmd(env Env) *cobra.Command {
	var dir string
	var asJSON, dryRun bool
	var keep int
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List stored runs (newest first); show or remove one; keep the newest N of each name",
		Args:  cobra.NoArgs,
		Example: `  perflab runs
  perflab runs --json
  perflab runs --prune-keep 10 --dir ci-baseline    # a CI cache of baseline runs, bounded`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("prune-keep") {
				return pruneRuns(env, store.Store{Root: dir}, keep, dryRun)
			}
			if dryRun {
				return usageErr("--dry-run goes with --prune-keep")
			}
			entries, err := store.Store{Root: dir}.List()
			if err != nil {
				return failed(err)
			}
			if asJSON {
				return runsListJSON(env, entries)
			}
			if len(entries) == 0 {
				fmt.Fprintf(env.Stdout, "no runs in %s\n", dir)
				return nil
			}
			tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tSTARTED\tREQ/S\tP99\tCPU MS/REQ\tSTATUS")
			for _, e := range entries {
				if e.Err != nil {
					fmt.Fprintf(tw, "%s\t?\t?\t\t\t\tunreadable: %v\n", e.Dir, e.Err)
					continue
				}
				r := e.Run
				rps, p99, cpu := "-", "-", "-"
				if r.Load != nil {
					rps = fmt.Sprintf("%.0f", r.Load.RPS)
					p99 = fmt.Sprintf("%.2fms", r.Load.Latency.P99)
				}
				if r.Target != nil && r.Target.CPUMsPerRequest > 0 {
					cpu = fmt.Sprintf("%.3f", r.Target.CPUMsPerRequest)
				}
				status := r.Status
				if r.PartialReason != "" {
					status += ": " + r.PartialReason
					if len(status) > 60 {
						status = status[:60] + "..."
					}
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Name, r.Started.Format("2006-01-02 15:04:05"), rps, p99, cpu, status)
			}
			return tw.Flush()
		},
	}
	cmd.PersistentFlags().StringVar(&dir, "dir", store.DefaultRoot, "`directory` that keeps the runs")
	cmd.Flags().BoolVar(&asJSON, "json", false, "list the runs as JSON (id, name, dir, started, status, requests, rps, p99_ms, cpu_ms_per_request, measurement, revision)")
	cmd.Flags().IntVar(&keep, "prune-keep", 0, "remove all but the newest `N` runs of each name (prints each one removed)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "with --prune-keep: print what would be removed, remove nothing")
	cmd.AddCommand(&cobra.Command{
		Use:   "show RUN",
		Short: "Print a run's summary and verdict (RUN: ID, name, path, glob or latest)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			es, err := store.Store{Root: dir}.Resolve(args[0])
			if err != nil {
				return usageErr("%v", err)
			}
			e := es[0]
			if err := report.WriteHeadline(env.Stdout, e.Run); err != nil {
				return failed(err)
			}
			if e.Run.Load != nil {
				if err := report.WriteLoadText(env.Stdout, e.Run.Load); err != nil {
					return failed(err)
				}
			}
			return report.WriteVerdict(env.Stdout, e.Run, e.Dir)
		},
	}, &cobra.Command{
		Use:   "rm RUN...",
		Short: "Remove runs (RUN: ID, name, path or glob)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s := store.Store{Root: dir}
			for _, ref := range args {
				es, err := s.Resolve(ref)
				if err != nil {
					return usageErr("%v", err)
				}
				for _, e := range es {
					if err := s.Remove(e); err != nil {
						return failed(err)
					}
					fmt.Fprintf(env.Stdout, "removed %s\n", e.Dir)
				}
			}
			return nil
		},
	})
	return cmd
}
