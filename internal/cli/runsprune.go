package cli

import (
	"errors"
	"fmt"

	"perflab/internal/store"
)

// pruneRuns keeps the newest keep runs of each name in st and removes the
// older ones (each printed; none with dryRun). Directories whose run.json
// cannot be read are left alone; one Remove refuses (a user's files in it)
// is skipped with a warning and the rest still pruned: the exit is 0 when
// only refusals were left, 3 when a removal failed.
func pruneRuns(env Env, st store.Store, keep int, dryRun bool) error {
	if keep < 0 {
		return usageErr("--prune-keep %d: want the number of runs of each name to keep (0 removes them all)", keep)
	}
	entries, err := st.List()
	if err != nil {
		return failed(err)
	}
	verb := "removed"
	if dryRun {
		verb = "would remove"
	}
	seen := map[string]int{}
	removed, refused := 0, 0
	var failure error
	for _, e := range entries { // newest first
		if e.Err != nil || e.Run == nil {
			continue
		}
		seen[e.Run.Name]++
		if seen[e.Run.Name] <= keep {
			continue
		}
		if !dryRun {
			if err := st.Remove(e); err != nil {
				fmt.Fprintf(env.Stderr, "perflab: warning: %v\n", err)
				if errors.Is(err, store.ErrRefused) {
					refused++
				} else if failure == nil {
					failure = err
				}
				continue
			}
		}
		removed++
		fmt.Fprintf(env.Stdout, "%s %s\n", verb, e.Dir)
	}
	left := ""
	if refused > 0 {
		left = fmt.Sprintf(" (%d left as they are: they hold files perflab did not write)", refused)
	}
	fmt.Fprintf(env.Stderr, "perflab: %s %d run%s, kept the newest %d of each of %d name%s in %s%s\n", verb, removed, plural(removed), keep, len(seen), plural(len(seen)), st.Root, left)
	if failure != nil {
		return failed(fmt.Errorf("pruning %s: %w", st.Root, failure))
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
