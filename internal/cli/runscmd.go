package cli

import (
	"fmt"
	"io"
	"math"
	"path/filepath"

	"github.com/spf13/cobra"

	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/store"
)

func newRunsCmd(env Env) *cobra.Command {
	var dir string
	var format *formatFlag
	var dryRun bool
	var keep int
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List stored runs (newest first); show or remove one; keep the newest N of each name",
		Args:  positional(),
		Example: `  perflab runs
  perflab runs --json
  perflab runs --prune-keep 10 --dir ci-baseline    # a CI cache of baseline runs, bounded`,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := openStore(dir)
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("prune-keep") {
				return pruneRuns(env, st, keep, dryRun)
			}
			if dryRun {
				return usageErr("--dry-run goes with --prune-keep")
			}
			entries, err := st.List()
			if err != nil {
				return failed(err)
			}
			rows := []runfmt.RunListing{}
			for _, e := range entries {
				rows = append(rows, runfmt.Listing(filepath.Base(e.Dir), e.Dir, e.Run, e.Err))
			}
			err = format.write(env.Stdout, views{
				formatText: func(w io.Writer) error { return writeRunsText(w, rows, dir) },
				formatJSON: jsonView(rows),
			})
			if err != nil {
				return failed(err)
			}
			return nil
		},
	}
	v := flagSet{cmd.PersistentFlags()}
	v.checked(&dir, "dir", "", store.DefaultRootHelp, "directory", nonEmpty, "`directory` that keeps the runs")
	format = addFormatFlag(cmd, "list the runs as JSON (id, name, dir, started, status, requests, rps, p99_ms, cpu_ms_per_request, measurement, revision)", formatText, formatJSON)
	flagSet{cmd.Flags()}.int(&keep, "prune-keep", "", 0, 0, math.MaxInt, "remove all but the newest `N` runs of each name (prints each one removed)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "with --prune-keep: print what would be removed, remove nothing")
	cmd.AddCommand(newRunsShowCmd(env, &dir), newRunsRmCmd(env, &dir))
	return cmd
}

// writeRunsText is the runs table, or a line saying there are none.
func writeRunsText(w io.Writer, rows []runfmt.RunListing, dir string) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintf(w, "no runs in %s\n", dir)
		return err
	}
	return report.WriteRunsTable(w, rows)
}

// newShowCmd is perflab show: runs show, with its own --dir.
func newShowCmd(env Env) *cobra.Command {
	dir := new(string)
	cmd := newRunsShowCmd(env, dir)
	cmd.Example = `  perflab show latest
  perflab show 20261121-063812-svc --full`
	flagSet{cmd.Flags()}.checked(dir, "dir", "", store.DefaultRootHelp, "directory", nonEmpty, "`directory` that keeps the runs")
	return cmd
}

func newRunsShowCmd(env Env, dir *string) *cobra.Command {
	var out reportFlags
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "Print a run's verdict again, on one screen or in full (RUN: ID, name, path, glob or latest)",
		Args:  positional("RUN"),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := openStore(*dir)
			if err != nil {
				return err
			}
			es, err := st.Resolve(args[0])
			if err != nil {
				return usageErr("%v", err)
			}
			if len(es) > 1 {
				return usageErr("%q names %d runs: show one at a time (%s, ...)", args[0], len(es), filepath.Base(es[0].Dir))
			}
			e := es[0]
			v := out.runViews(e.Run, e.Dir, out.markdownOptions(env, *dir))
			if e.Run.Bench != nil {
				v = benchViews(e.Run, e.Dir, out.markdownOptions(env, *dir))
			}
			if e.Run.Batch != nil {
				if out.format.is(formatMarkdown) {
					return usageErr("%s is a batch program's run: it prints as text or json", filepath.Base(e.Dir))
				}
				v = batchViews(e.Run, e.Dir)
			}
			if err := out.format.write(env.Stdout, v); err != nil {
				return failed(err)
			}
			return nil
		},
	}
	out.format = addFormatFlag(cmd, "", formatText, formatJSON, formatMarkdown)
	out.registerPage(cmd)
	return cmd
}

func newRunsRmCmd(env Env, dir *string) *cobra.Command {
	var all, dryRun bool
	cmd := &cobra.Command{
		Use:   "rm RUN... | rm --all",
		Short: "Remove runs (RUN: ID, unique ID prefix, name, path or glob); prints each one removed",
		Long: `Remove stored runs and print each one removed. Each RUN must name one run,
unless it is a glob ('svc-*', '20261121-*'): a name shared by several runs, or
a prefix of several IDs, is refused with the list of what it matches. --all
accepts such references, and alone removes every run in --dir. --dry-run
prints what would be removed and removes nothing. Only run directories that
perflab wrote are removed (run.json, report.html, target.log, profiles/).`,
		Example: `  perflab runs rm 20261121-063812-svc
  perflab runs rm '20261121-*' --dry-run
  perflab runs rm --all svc          # every run named svc
  perflab runs rm --all              # every run in ./perflab-runs`,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := openStore(*dir)
			if err != nil {
				return err
			}
			targets, err := runsToRemove(st, args, all)
			if err != nil {
				return err
			}
			verb := "removed"
			if dryRun {
				verb = "would remove"
			}
			for _, e := range targets {
				if !dryRun {
					if err := st.Remove(e); err != nil {
						return failed(err)
					}
				}
				fmt.Fprintf(env.Stdout, "%s %s\n", verb, e.Dir)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "remove every run each RUN names (a name or prefix shared by several runs); alone, every run in --dir")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print what would be removed, remove nothing")
	return cmd
}

// runsToRemove resolves rm's arguments: one run per reference unless it is
// a glob or --all says so; each run once.
func runsToRemove(st store.Store, refs []string, all bool) ([]store.Entry, error) {
	if len(refs) == 0 {
		if !all {
			return nil, usageErr("runs rm: name the runs to remove (ID, name, glob or path), or give --all to remove every run in %s", st.Root)
		}
		es, err := st.List()
		if err != nil {
			return nil, failed(err)
		}
		for _, e := range es {
			if e.Err != nil {
				return nil, usageErr("%s: %v (remove it by hand if it is yours)", e.Dir, e.Err)
			}
		}
		return es, nil
	}
	var out []store.Entry
	seen := map[string]bool{}
	for _, ref := range refs {
		es, err := st.Resolve(ref)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		if len(es) > 1 && !all && !store.IsGlob(ref) {
			var ids []string
			for _, e := range es {
				ids = append(ids, filepath.Base(e.Dir))
			}
			return nil, usageErr("%q names %d runs (%s): give --all to remove them all, or name one", ref, len(es), joinMax(ids, 5))
		}
		for _, e := range es {
			if !seen[e.Dir] {
				seen[e.Dir] = true
				out = append(out, e)
			}
		}
	}
	return out, nil
}
