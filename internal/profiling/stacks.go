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
)

// maxModules bounds the modules listed when stacks do not reach user code.
const maxModules = 8

// judgeStacks says whether the stacks of cpu, a profile perf recorded,
// reach the user's code (ownership's depth verdict over the executables
// of the processes perf sampled, the project root and --user-code), how
// perf walked them, and, when they do not, the CPU per module. Nil when
// perf recorded none of it.
func (p *Set) judgeStacks(cpu *profile.Profile) *runfmt.Stacks {
	if p.tree == nil || !p.used.Has(runfmt.ProfilerPerf) {
		return nil
	}
	var pids []int
	for _, pp := range p.tree.processes() {
		if pp.Profiler == runfmt.ProfilerPerf {
			pids = append(pids, pp.PID)
		}
	}
	m, err := own.Detect(own.Inputs{PIDs: pids, Root: p.cfg.Src, UserCode: p.cfg.UserCode})
	if err != nil {
		return nil // an invalid --user-code was refused where it was parsed
	}
	ci := cpuIndex(cpu)
	d := m.ClassifyProfile(cpu).Depth(cpu, ci)
	u := p.tree.unwinding()
	st := &runfmt.Stacks{StackReach: d.Verdict, Unwind: u.how, DWARFStackBytes: u.stackBytes, UnwindWhy: u.why}
	if d.Judged > 0 {
		st.ShallowShare = math.Round(1e4*float64(d.Shallow)/float64(d.Judged)) / 1e4
	}
	if !st.Reach {
		st.SymbolsLang = symbolsFirst(m.Spec().Binaries, &st.StackReach)
		st.Modules = moduleCPU(cpu, ci)
	}
	return st
}

// symbolsFirst is the language of a stripped native binary, whose symbol
// table the remedy puts first (no frame can be named without it however
// deep the stacks are); "" when there is none, or when v's remedy is
// already to keep the symbols (naming native code).
func symbolsFirst(bins []own.Binary, v *runfmt.StackReach) string {
	if v.Fix == runfmt.FixNaming && !scriptLang(v.Lang) {
		return ""
	}
	for _, b := range bins {
		if (b.Lang == own.LangRust || b.Lang == own.LangNative) && !b.Symbols {
			return b.Lang
		}
	}
	return ""
}

// scriptLang says whether lang's code is named by a perf map or its own
// profiler rather than by a binary's symbols.
func scriptLang(lang string) bool {
	return lang == own.LangJVM || lang == own.LangNode || lang == own.LangPython || lang == own.LangRuby
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
