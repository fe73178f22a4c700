package compare

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
	"perflab/internal/stacks"
)

// ProfilePair is one profile kind merged per group, with the number of
// requests each merged profile stands for, so costs divide per request.
type ProfilePair struct {
	Base, New                 *profile.Profile
	BaseRequests, NewRequests int64
}

// loadProfiles reads the run's CPU and allocation profiles; a profile the
// run lists but that cannot be read becomes a warning.
func loadProfiles(r *run, warn *[]string) {
	for _, kind := range []runfmt.ProfileType{runfmt.ProfileCPU, runfmt.ProfileAllocs} {
		path := profilePath(*r, kind)
		if path == "" {
			continue
		}
		p, err := readProfile(path)
		if err != nil {
			*warn = append(*warn, fmt.Sprintf("run %s: %v: its %s profile is left out", r.id(), err, kind))
			continue
		}
		if kind == runfmt.ProfileCPU {
			if k := r.r.CPUScale(); k != 1 {
				p.Scale(k) // to the CPU measured, as the run's own pages print it
			}
			r.cpu = p
		} else {
			r.allocs = p
		}
	}
}

// profilePath is where the run keeps a profile of kind, or "".
func profilePath(r run, kind runfmt.ProfileType) string {
	for _, ref := range r.r.Profiles {
		if ref.Type == kind && ref.File != "" {
			return filepath.Join(r.dir, ref.File)
		}
	}
	return ""
}

// readProfile reads a run's profile, bounded in size (see
// stacks.ReadProfileFile).
func readProfile(path string) (*profile.Profile, error) {
	return stacks.ReadProfileFile(path)
}

// pick returns the runs that have a profile of kind and their profiles.
func pick(runs []run, kind runfmt.ProfileType) ([]run, []*profile.Profile) {
	var rs []run
	var ps []*profile.Profile
	for _, r := range runs {
		p := r.cpu
		if kind == runfmt.ProfileAllocs {
			p = r.allocs
		}
		if p != nil {
			rs, ps = append(rs, r), append(ps, p)
		}
	}
	return rs, ps
}

// merge merges one group's profiles so that each run weighs the same: every
// profile is scaled to the group's mean request count before merging, and
// the merged profile stands for mean × runs requests.
func merge(runs []run, ps []*profile.Profile) (*profile.Profile, int64, error) {
	var mean float64
	for _, r := range runs {
		mean += float64(r.requests())
	}
	mean /= float64(len(runs))
	scaled := make([]*profile.Profile, len(ps))
	for i, p := range ps {
		scaled[i] = p.Copy()
		scaled[i].Scale(mean / float64(runs[i].requests()))
	}
	m, err := profile.Merge(scaled)
	if err != nil {
		return nil, 0, fmt.Errorf("merging profiles: %w", err)
	}
	return m, int64(mean*float64(len(runs)) + 0.5), nil
}

// allocsPerRequest is the bytes a run's service allocated per request: its
// allocation profile's total, perflab's measuring left out, over its
// requests (a run recorded before measuring was counted apart counts it in
// run.json's figure); else as recorded in run.json.
func allocsPerRequest(r run) (float64, bool) {
	if b, _ := analysis.AllocsPerRequest(r.allocs, r.requests()); b > 0 {
		return b, true
	}
	if r.r.AllocBytesPerRequest > 0 {
		return r.r.AllocBytesPerRequest, true
	}
	return 0, false
}

// DiffFlame draws the differential flame graph of the two sides' CPU
// profiles, per request, as a page titled title; nil when a side has no
// CPU profile.
func (r *Result) DiffFlame(title string) ([]byte, error) {
	p := r.CPU
	if p == nil || p.Base == nil || p.New == nil {
		return nil, nil
	}
	var b bytes.Buffer
	if err := analysis.WriteDiffFlameHTML(&b, p.Base, p.New, p.BaseRequests, p.NewRequests, analysis.FlameOptions{Title: title}); err != nil {
		return nil, fmt.Errorf("drawing the differential flame graph: %w", err)
	}
	return b.Bytes(), nil
}
