package cli

import (
	"fmt"

	"github.com/spf13/pflag"

	"perflab/internal/store"
)

// baselineFlags make compare's BASE the last runs of a name: a baseline
// kept between CI jobs (runs of main in a cache or artifact directory).
type baselineFlags struct {
	name string
	last int
	dir  string
}

func (b *baselineFlags) register(fs *pflag.FlagSet) {
	v := flagSet{fs}
	v.checked(&b.name, "baseline", "", "", "name", nonEmpty, "compare NEW against the last runs named `NAME` (e.g. runs of main kept in a CI cache): then give NEW only")
	v.int(&b.last, "last", "", DefaultABRuns, 1, maxRuns, "with --baseline: how many of NAME's newest runs make the baseline")
	v.checked(&b.dir, "baseline-dir", "", "", "directory", nonEmpty, "with --baseline: `directory` that keeps the baseline's runs (default: --dir)")
}

// check refuses the baseline's companions without it.
func (b *baselineFlags) check(fs *pflag.FlagSet) error {
	if b.name == "" {
		for _, f := range []string{"last", "baseline-dir"} {
			if fs.Changed(f) {
				return usageErr("--%s goes with --baseline NAME", f)
			}
		}
		return nil
	}
	if b.last < 1 {
		return usageErr("--last %d: want at least 1 (%d or more for a confident verdict)", b.last, DefaultABRuns)
	}
	return nil
}

// runs returns the newest b.last runs named b.name that measured requests,
// newest first.
func (b *baselineFlags) runs(dir string) ([]store.Entry, error) {
	if b.dir != "" {
		dir = b.dir
	}
	all, err := store.Store{Root: dir}.List()
	if err != nil {
		return nil, failed(err)
	}
	var out []store.Entry
	named := 0
	for _, e := range all {
		if e.Err != nil || e.Run == nil || e.Run.Name != b.name {
			continue
		}
		named++
		measured := e.Run.Load != nil && e.Run.Load.Requests > 0 || e.Run.Batch != nil && e.Run.Batch.WallS > 0
		if measured && len(out) < b.last {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil, usageErr("--baseline %s: no run of that name with measured requests in %s (%d named so; see 'perflab runs --dir %s')", b.name, dir, named, dir)
	}
	return out, nil
}

func (b *baselineFlags) label() string { return fmt.Sprintf("%s (last %d)", b.name, b.last) }
