// Package profview computes the views of a stored profile: top tables,
// source listings, flame graphs and their exports, of a profile file or of
// a run's profile. It is what `perflab top`, `list`, `flame` and the
// summary of `perflab profile` compute; the cli maps their flags to a Ref
// and the options of a view, and writes what the view returns.
//
// # Usage
//
//	src, err := profview.Ref{Root: dir, Allocs: true}.Resolve("latest")
//	t, err := src.Top(profview.TopOptions{User: true, N: 10})
//	err = t.WriteText(os.Stdout)
//
// # Errors
//
// An error in what the user named (a file that is not a profile, a run
// that does not exist, a sample type the profile lacks) matches ErrInput;
// any other error is a failure to read or write.
package profview

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/files"
	"perflab/internal/runfmt"
	"perflab/internal/store"
	"perflab/internal/walltime"
)

// Ref names a profile as top, list and flame take it: a profile file, or
// a run (ID, name, path, glob or "latest") whose CPU, allocations or
// wall-time profile is read with its request count. Its fields are those
// commands' flags, and errors name them so.
type Ref struct {
	// Root is the directory that keeps the runs (--dir).
	Root string
	// Allocs reads a run's allocations profile instead of its CPU
	// profile (--allocs); a profile file is refused.
	Allocs bool
	// Wall reads a run's wall-time profile, or a Go execution trace
	// file's wall time of request goroutines (--wall).
	Wall bool
	// Requests divides the costs for per-request figures; 0 takes a
	// run's request count (--requests).
	Requests int64
	// Sample is the sample type to show; "" is the profile's default,
	// alloc_space with Allocs (--sample).
	Sample string
}

// Source is a profile Resolve found: the file to read, or the profile
// already made from it (a trace's wall time), with what it is and the
// figures of its run.
type Source struct {
	path, title string
	requests    int64
	sample      string
	prof        *profile.Profile
	run         string // the run's directory, when a run was named
	// userCode is the run's ownership model (run.json's, or its project
	// root and --user-code for older runs), so the views agree with its
	// verdict.
	userCode analysis.UserCode
	// scale multiplies a run's CPU per request to the CPU measured
	// (runfmt.Run.CPUScale), as its verdict prints it.
	scale float64
}

// Resolve finds the profile arg names: a file, else a run in Root.
func (f Ref) Resolve(arg string) (*Source, error) {
	r := &Source{path: arg, title: filepath.Base(arg), requests: f.Requests, sample: f.Sample}
	if f.Allocs && f.Wall {
		return nil, inputErr("give either --allocs or --wall, not both")
	}
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		if f.Allocs {
			return nil, inputErr("--allocs: %s is a profile file, not a run (name a run, or give --sample alloc_space)", arg)
		}
		if f.Wall {
			return r, r.readTrace()
		}
		return r, nil
	}
	es, err := store.Store{Root: f.Root}.Resolve(arg)
	if err != nil {
		return nil, inputErr("%s: not a profile file, and not a run in %s: %w", arg, f.Root, err)
	}
	e := es[0]
	typ := runfmt.ProfileCPU
	if f.Allocs {
		typ = runfmt.ProfileAllocs
		if r.sample == "" {
			r.sample = "alloc_space"
		}
	}
	if f.Wall {
		typ = runfmt.ProfileWall
	}
	for _, p := range e.Run.Profiles {
		if p.Type != typ && !(f.Wall && p.Type == runfmt.ProfileOffCPU) {
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
		if t := e.Run.Time; f.Wall && t != nil && f.Requests == 0 {
			r.requests = t.Requests // the requests of the traced slice
		}
		return r, nil
	}
	return nil, fmt.Errorf("run %s has no %s profile (see the warnings in %s)", e.Run.ID, typ, filepath.Join(e.Dir, "run.json"))
}

// readTrace reads the Go execution trace file at r.path into its
// wall-time profile.
func (r *Source) readTrace() error {
	file, err := files.Open(r.path, runfmt.MaxProfileBytes) // a regular file: a FIFO would block
	if err != nil {
		return err
	}
	defer file.Close()
	a, err := walltime.ReadWith(files.LimitReader(file, runfmt.MaxProfileBytes, r.path), walltime.Options{Counts: r.userCode.IsUser})
	if err != nil {
		return inputErr("--wall: %s: %w", r.path, err)
	}
	r.prof, r.title = a.Profile, r.title+": wall time of request goroutines"
	return nil
}
