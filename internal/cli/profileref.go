package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/pprof/profile"
	"github.com/spf13/pflag"

	"perflab/internal/analysis"
	"perflab/internal/files"
	"perflab/internal/runfmt"
	"perflab/internal/store"
	"perflab/internal/walltime"
)

// profileRef is how `perflab top` and `perflab flame` name what they read:
// a profile file, or a run (ID, name, path, glob or "latest") whose CPU
// (or, with --allocs, allocations) profile is used with its request count.
type profileRef struct {
	dir      string
	allocs   bool
	wall     bool
	requests int64
	sample   string
}

func (f *profileRef) register(fs *pflag.FlagSet) {
	v := flagSet{fs}
	v.checked(&f.dir, "dir", "", store.DefaultRootHelp, "directory", nonEmpty, "`directory` that keeps the runs")
	fs.BoolVar(&f.allocs, string(runfmt.ProfileAllocs), false, "for a run: use its allocations profile (bytes allocated in the window) instead of CPU")
	fs.BoolVar(&f.wall, string(runfmt.ProfileWall), false, "wall time instead of CPU: a run's time per request by stack (running, runnable, network, sync, syscall, gc, sleep; --sample offcpu for all but running), or a Go execution trace file")
	v.int64(&f.requests, "requests", "", 0, 1, maxCount, "divide by this many `requests` for per-request columns (default: a run's request count)")
	v.checked(&f.sample, "sample", "", "", "type", nonEmpty, "sample `type` to show (cpu, samples, alloc_space, alloc_objects, inuse_space...; default: the profile's)")
}

// resolved is the profile file to read and what it is; prof, when set, is
// the profile already read (a wall-time profile made from a trace).
type resolved struct {
	path, title string
	requests    int64
	sample      string
	prof        *profile.Profile
	run         string // the run's directory, when a run was named
	// userCode is the run's ownership model (run.json's, or its project
	// root and --user-code for older runs), so top and flame agree with
	// its verdict.
	userCode analysis.UserCode
	// scale multiplies a run's CPU per request to the CPU measured
	// (runfmt.Run.CPUScale), as its verdict prints it.
	scale float64
}

// resolve finds the profile file arg names.
func (f *profileRef) resolve(arg string) (resolved, error) {
	r := resolved{path: arg, title: filepath.Base(arg), requests: f.requests, sample: f.sample}
	if f.allocs && f.wall {
		return r, usageErr("give either --allocs or --wall, not both")
	}
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		if f.allocs {
			return r, usageErr("--allocs: %s is a profile file, not a run (name a run, or give --sample alloc_space)", arg)
		}
		if f.wall {
			return f.traceWall(r)
		}
		return r, nil
	}
	es, err := store.Store{Root: f.dir}.Resolve(arg)
	if err != nil {
		return r, usageErr("%s: not a profile file, and not a run in %s: %v", arg, f.dir, err)
	}
	e := es[0]
	typ := runfmt.ProfileCPU
	if f.allocs {
		typ = runfmt.ProfileAllocs
		if r.sample == "" {
			r.sample = "alloc_space"
		}
	}
	if f.wall {
		typ = runfmt.ProfileWall
	}
	for _, p := range e.Run.Profiles {
		if p.Type != typ && !(f.wall && p.Type == runfmt.ProfileOffCPU) {
			continue
		}
		r.path, r.run = filepath.Join(e.Dir, p.File), e.Dir
		r.title = fmt.Sprintf("%s: %s (%s)", e.Run.ID, typ, p.Source)
		if r.requests == 0 && e.Run.Load != nil {
			r.requests = e.Run.Load.Requests
			if typ == runfmt.ProfileCPU && e.Run.PerRequestCount() > 0 {
				// the count and scale of the run's own figures per request
				r.requests, r.scale = e.Run.PerRequestCount(), e.Run.CPUScale()
			}
		}
		r.userCode = analysis.RunUserCode(e.Run.Profiling)
		if t := e.Run.Time; f.wall && t != nil && f.requests == 0 {
			r.requests = t.Requests // the requests of the traced slice
		}
		return r, nil
	}
	return r, failed(fmt.Errorf("run %s has no %s profile (see the warnings in %s)", e.Run.ID, typ, filepath.Join(e.Dir, "run.json")))
}

// traceWall reads a Go execution trace file into its wall-time profile.
func (f *profileRef) traceWall(r resolved) (resolved, error) {
	file, err := files.Open(r.path, runfmt.MaxProfileBytes) // a regular file: a FIFO would block
	if err != nil {
		return r, failed(err)
	}
	defer file.Close()
	a, err := walltime.ReadWith(files.LimitReader(file, runfmt.MaxProfileBytes, r.path), walltime.Options{Counts: r.userCode.IsUser})
	if err != nil {
		return r, usageErr("--wall: %s: %v", r.path, err)
	}
	r.prof, r.title = a.Profile, r.title+": wall time of request goroutines"
	return r, nil
}

// top computes the top table of the resolved profile.
func (r resolved) top(opt analysis.TopOptions) (*analysis.Table, error) {
	if r.prof != nil {
		return analysis.Top(r.prof, opt)
	}
	return analysis.TopFile(r.path, opt)
}
