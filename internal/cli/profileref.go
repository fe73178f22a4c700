package cli

import (
	"errors"

	"github.com/spf13/pflag"

	"perflab/internal/profview"
	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// profileRef is how `perflab top`, `list` and `flame` name what they
// read: a profile file, or a run (ID, name, path, glob or "latest") whose
// CPU (or, with --allocs, allocations) profile is used with its request
// count.
type profileRef struct{ profview.Ref }

func (f *profileRef) register(fs *pflag.FlagSet) {
	v := flagSet{fs}
	v.checked(&f.Root, "dir", "", store.DefaultRootHelp, "directory", nonEmpty, "`directory` that keeps the runs")
	fs.BoolVar(&f.Allocs, string(runfmt.ProfileAllocs), false, "for a run: use its allocations profile (bytes allocated in the window) instead of CPU")
	fs.BoolVar(&f.Wall, string(runfmt.ProfileWall), false, "wall time instead of CPU: a run's time per request by stack (running, runnable, network, sync, syscall, gc, sleep; --sample offcpu for all but running), or a Go execution trace file")
	v.int64(&f.Requests, "requests", "", 0, 1, maxCount, "divide by this many `requests` for per-request columns (default: a run's request count)")
	v.checked(&f.Sample, "sample", "", "", "type", nonEmpty, "sample `type` to show (cpu, samples, alloc_space, alloc_objects, inuse_space...; default: the profile's)")
}

// resolve finds the profile arg names.
func (f *profileRef) resolve(arg string) (*profview.Source, error) {
	s, err := f.Resolve(arg)
	return s, viewErr(err)
}

// viewErr gives a profile view's error its exit: the user's input (the
// file, the run or the sample type named) or a failure.
func viewErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, profview.ErrInput):
		return &exitError{code: ExitUsage, err: err}
	}
	return failed(err)
}
