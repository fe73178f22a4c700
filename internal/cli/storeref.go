package cli

import (
	"github.com/spf13/cobra"

	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"perflab/internal/store"
)

// openStore is the run directory --dir names, for commands that read it:
// a missing one holds no runs, something that is not a directory is bad
// input.
// defaultStore sets cmd's --dir, when it has one and it was not given, to
// the user's store (store.DefaultRoot), which its help names.
func defaultStore(cmd *cobra.Command, env Env) error {
	f := cmd.Flags().Lookup("dir")
	if f == nil || f.Changed || f.Value.String() != store.DefaultRootHelp {
		return nil
	}
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if err := f.Value.Set(store.DefaultRoot(getenv)); err != nil {
		return usageErr("$%s: %v", store.RootEnv, err)
	}
	return nil
}

func openStore(dir string) (store.Store, error) {
	if strings.TrimSpace(dir) == "" {
		return store.Store{}, usageErr("--dir is empty: give the directory that keeps the runs")
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return store.Store{}, usageErr("--dir %s: %v", dir, err)
	case !st.IsDir():
		return store.Store{}, usageErr("--dir %s: not a directory", dir)
	}
	return store.Store{Root: dir}, nil
}

// writableStore is the run directory --dir names, for commands that write
// runs: it is created if missing, and a directory perflab cannot write in
// (read-only, not a directory) is bad input, found before the service is
// started rather than after it was measured.
func writableStore(dir string) (store.Store, error) {
	if strings.TrimSpace(dir) == "" {
		return store.Store{}, usageErr("--dir is empty: give the directory that keeps the runs")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return store.Store{}, usageErr("--dir %s: cannot create it: %v", dir, err)
	}
	probe, err := os.CreateTemp(dir, ".perflab-write-test-*")
	if err != nil {
		return store.Store{}, usageErr("--dir %s: cannot write in it: %v", dir, err)
	}
	probe.Close()
	_ = os.Remove(probe.Name()) // perflab's own probe file
	return store.Store{Root: dir}, nil
}

// joinMax joins up to n items, then says how many more there are.
func joinMax(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(", and %d more", len(items)-n)
}
