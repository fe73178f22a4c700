package profiling

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/pprof/profile"

	own "perflab/internal/ownership"
	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// maxModules bounds the modules listed when stacks do not reach user code.
const maxModules = 8

// judgeStacks says whether the stacks of cpu, a profile perf recorded,
// reach the user's code (ownership's depth verdict over the executables
// of the processes perf sampled, the project root and --user-code), how
// perf walked them, and, when they do not, the CPU per module. Nil when
// perf recorded none of it. native says a process perf sampled is native
// code (Rust, C, C++), whose stacks the run's notes speak of: the notes
// of a JIT's or an interpreter's say what perf needs to name its code.
func (p *Set) judgeStacks(cpu *profile.Profile) (st *runfmt.Stacks, native bool) {
	if p.tree == nil || !p.used.Has(runfmt.ProfilerPerf) {
		return nil, false
	}
	var pids []int
	for _, pp := range p.tree.processes() {
		if pp.Profiler == runfmt.ProfilerPerf {
			pids = append(pids, pp.PID)
			native = native || pp.Runtime == runfmt.RuntimeNative
		}
	}
	m, err := own.Detect(own.Inputs{PIDs: pids, Root: p.cfg.Src, UserCode: p.cfg.UserCode})
	if err != nil {
		return nil, false // an invalid --user-code was refused where it was parsed
	}
	ci := cpuIndex(cpu)
	d := m.ClassifyProfile(cpu).Depth(cpu, ci)
	u := p.tree.unwinding()
	st = &runfmt.Stacks{Reach: d.Verdict.Reach, Reason: d.Verdict.Reason, Remedy: d.Verdict.Remedy,
		Unwind: u.how, DWARFStackBytes: u.stackBytes, UnwindWhy: u.why, MedianFrames: d.Median}
	if d.Judged > 0 {
		st.ShallowShare = math.Round(1e4*float64(d.Shallow)/float64(d.Judged)) / 1e4
	}
	if !st.Reach {
		st.Remedy = withSymbols(m.Spec().Binaries, st.Remedy)
		st.Modules = moduleCPU(cpu, ci)
	}
	return st, native
}

// withSymbols puts first in remedy what a stripped native binary needs:
// its symbol table, without which no frame can be named however deep the
// stacks are.
func withSymbols(bins []own.Binary, remedy string) string {
	for _, b := range bins {
		if b.Lang == own.LangRust || b.Lang == own.LangNative {
			if !b.Symbols && !strings.Contains(remedy, "strip") {
				return own.NamingRemedy(b.Lang) + "; and " + remedy
			}
		}
	}
	return remedy
}

// cpuIndex is the index of cpu/nanoseconds among p's sample types (the
// last one when there is none).
func cpuIndex(p *profile.Profile) int {
	for i, st := range p.SampleType {
		if st.Type == runfmt.CPUSample && st.Unit == "nanoseconds" {
			return i
		}
	}
	return len(p.SampleType) - 1
}

// moduleCPU is the CPU of p's samples by the binary of their leaf frame
// (perf's dso), costliest first, the first maxModules of them and the
// rest as "other modules": the costs that can be told when functions
// cannot.
func moduleCPU(p *profile.Profile, ci int) []runfmt.ModuleCPU {
	by := map[string]int64{}
	var total int64
	for _, s := range p.Sample {
		if ci < 0 || ci >= len(s.Value) {
			continue
		}
		by[leafModule(s)] += s.Value[ci]
		total += s.Value[ci]
	}
	if total <= 0 {
		return nil
	}
	out := make([]runfmt.ModuleCPU, 0, len(by))
	for name, v := range by {
		out = append(out, runfmt.ModuleCPU{Module: name, CPUSeconds: float64(v) / 1e9, Share: float64(v) / float64(total)})
	}
	slices.SortFunc(out, func(a, b runfmt.ModuleCPU) int {
		return cmp.Or(cmp.Compare(b.Share, a.Share), strings.Compare(a.Module, b.Module))
	})
	if len(out) > maxModules {
		rest := runfmt.ModuleCPU{Module: fmt.Sprintf("%d other modules", len(out)-maxModules)}
		for _, m := range out[maxModules:] {
			rest.CPUSeconds += m.CPUSeconds
			rest.Share += m.Share
		}
		out = append(out[:maxModules], rest)
	}
	for i := range out {
		out[i].CPUSeconds = math.Round(out[i].CPUSeconds*1e4) / 1e4
		out[i].Share = math.Round(out[i].Share*1e4) / 1e4
	}
	return out
}

// leafModule is the base name of the binary of s's leaf frame, or
// "[unknown]".
func leafModule(s *profile.Sample) string {
	if len(s.Location) == 0 || s.Location[0].Mapping == nil || s.Location[0].Mapping.File == "" {
		return "[unknown]"
	}
	return filepath.Base(s.Location[0].Mapping.File)
}

// stacksNote is the run's note on stacks that do not reach the user's
// code: why, the remedy, and the CPU per module; "" when they do.
func stacksNote(st *runfmt.Stacks) string {
	if st == nil || st.Reach {
		return ""
	}
	var mods []string
	for _, m := range st.Modules {
		mods = append(mods, fmt.Sprintf("%s %s", m.Module, units.FormatPct(100*m.Share)))
	}
	n := "the stacks do not reach your code, so no function of yours can be ranked: " + st.Reason + "; " + st.Remedy
	if len(mods) > 0 {
		n += ". CPU by module: " + strings.Join(mods, ", ")
	}
	return n
}
