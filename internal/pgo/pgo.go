package pgo

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/google/pprof/profile"

	"perflab/internal/files"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/session"
	"perflab/internal/stacks"
)

// Profile is the CPU profile Write wrote for go build -pgo.
type Profile struct {
	Path string
	// Runs are the IDs of the runs merged into it.
	Runs []string
	// Samples are its CPU samples (samples/count), the sum of the runs';
	// CPUNanos the CPU time they stand for (cpu/nanoseconds).
	Samples  int64
	CPUNanos int64
	// Skipped are the runs left out, each with why ("run ID: reason").
	Skipped []string
}

// Write merges the CPU profiles of the runs in results that the Go
// runtime recorded (profile.Merge: samples of the same stack add up) and
// writes them atomically to path, in the form go build -pgo=path takes: a
// gzipped pprof CPU profile with function start lines. A run without such
// a profile is skipped and said in Skipped; when no run has one the error
// says why, and is ErrInput when the profiles are of a kind go build
// -pgo does not take (not a failed run).
func Write(path string, results []*session.Result) (*Profile, error) {
	out := &Profile{Path: path}
	var profs []*profile.Profile
	var refused error
	for _, res := range results {
		if res == nil || res.Run == nil {
			continue
		}
		p, err := pgoInput(res)
		if err != nil {
			err = fmt.Errorf("run %s: %w", res.Run.ID, err)
			out.Skipped = append(out.Skipped, err.Error())
			if refused == nil || !errors.Is(refused, ErrInput) {
				refused = err
			}
			continue
		}
		profs = append(profs, p)
		out.Runs = append(out.Runs, res.Run.ID)
	}
	if len(profs) == 0 {
		if refused == nil {
			return out, errors.New("no run finished: no CPU profile to write")
		}
		return out, fmt.Errorf("no run has a CPU profile go build -pgo takes: %w", refused)
	}
	merged, err := profile.Merge(profs)
	if err != nil {
		return out, fmt.Errorf("merging the CPU profiles of runs %s: %w", strings.Join(out.Runs, ", "), err)
	}
	merged.Comments = append(merged.Comments, "perflab: CPU profile for go build -pgo, merged from runs "+strings.Join(out.Runs, ", "))
	out.Samples, out.CPUNanos = pgoTotals(merged)
	if err := files.WriteAtomic(path, merged.Write); err != nil {
		return out, err
	}
	return out, nil
}

// pgoInput reads a run's CPU profile and checks go build -pgo takes it:
// recorded by the Go runtime, with samples/count or cpu/nanoseconds
// values (the ones cmd/compile reads) and function start lines.
func pgoInput(res *session.Result) (*profile.Profile, error) {
	r := res.Run
	ref, ok := r.SavedProfile(runfmt.ProfileCPU)
	if !ok {
		why := "the run took none"
		if len(r.Degradations) > 0 {
			why = report.DegradationText(r, r.Degradations[0])
		}
		return nil, fmt.Errorf("no CPU profile (%s)", why)
	}
	if ref.Source != runfmt.SourceProfilers(runfmt.ProfilerPprof) {
		return nil, notRuntimeProfile(r, ref.Source)
	}
	p, err := stacks.ReadProfileFile(filepath.Join(res.Dir, ref.File))
	if err != nil {
		return nil, err
	}
	if idx := pgoValueIndex(p); idx < 0 {
		return nil, refusePGO("%s has no samples/count or cpu/nanoseconds values, the ones go build -pgo reads", ref.File)
	}
	if len(p.Sample) == 0 {
		return nil, fmt.Errorf("%s has no samples", ref.File)
	}
	for _, fn := range p.Function {
		if fn.StartLine != 0 {
			return p, nil
		}
	}
	return nil, refusePGO("%s has no function start lines (the Go runtime writes them since Go 1.20), which go build -pgo needs", ref.File)
}

// notRuntimeProfile says why a CPU profile source recorded is not one go
// build -pgo takes: the service is not a Go program, or it is one that
// perflab sampled from outside as no net/http/pprof endpoint of its was
// found.
func notRuntimeProfile(r *runfmt.Run, source runfmt.ProfileSource) error {
	if r.Profiling != nil {
		for _, pr := range r.Profiling.Processes {
			if pr.Runtime == runfmt.RuntimeGo {
				return refusePGO("its CPU profile was recorded by %s, as perflab found no net/http/pprof endpoint of the service: its %s; give the service's net/http/pprof address with --%s URL",
					source, outsideReason, runfmt.ProfilerPprof)
			}
		}
		if ps := r.Profiling.Processes; len(ps) > 0 {
			return notGo(fmt.Sprintf("the service (pid %d, %s)", ps[0].PID, ps[0].Exe), ps[0].Runtime)
		}
	}
	return refusePGO("its CPU profile was recorded by %s, not the Go runtime's net/http/pprof: its %s", source, outsideReason)
}

// pgoValueIndex is the index of the sample value cmd/compile weighs call
// edges by, the first samples/count or cpu/nanoseconds; -1 if none.
func pgoValueIndex(p *profile.Profile) int {
	for i, st := range p.SampleType {
		if isSampleCount(st) || isCPUNanos(st) {
			return i
		}
	}
	return -1
}

// isSampleCount and isCPUNanos tell the CPU profile's two values apart.
func isSampleCount(st *profile.ValueType) bool {
	return st.Type == runfmt.SampleCount && st.Unit == runfmt.SampleCountUnit
}
func isCPUNanos(st *profile.ValueType) bool {
	return st.Type == runfmt.CPUSample && st.Unit == "nanoseconds"
}

// pgoTotals are the profile's samples/count and cpu/nanoseconds sums (0
// for a value it lacks).
func pgoTotals(p *profile.Profile) (samples, cpuNanos int64) {
	for i, st := range p.SampleType {
		for _, s := range p.Sample {
			switch {
			case isSampleCount(st):
				samples += s.Value[i]
			case isCPUNanos(st):
				cpuNanos += s.Value[i]
			}
		}
	}
	return samples, cpuNanos
}
