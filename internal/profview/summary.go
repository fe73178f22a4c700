package profview

import (
	"fmt"
	"path/filepath"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
)

// CPUTops are the top tables of the user code of a run's CPU profiles
// that have samples, read from dir, by the profile's file: what the
// summary of `perflab profile` prints. There are none when the profile
// does not explain the CPU measured (in a run before schema 5, its words
// said so), which the summary does not list.
func CPUTops(r *runfmt.Run, dir string) (map[string]*analysis.Table, error) {
	tops := map[string]*analysis.Table{}
	if pr := r.Profiling; pr != nil && (pr.Unrepresentative != nil || pr.NotRepresentative != "") {
		return tops, nil
	}
	for _, pr := range r.Profiles {
		if pr.Type != runfmt.ProfileCPU || pr.Samples == 0 {
			continue
		}
		t, err := analysis.TopFile(filepath.Join(dir, pr.File), analysis.TopOptions{User: true, N: 10})
		if err != nil {
			return nil, fmt.Errorf("reading the CPU profile: %w", err)
		}
		tops[pr.File] = t
	}
	return tops, nil
}
