package analysis

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/google/pprof/profile"

	"perflab/internal/stacks"
)

// ExportOptions select what a flame graph export holds.
type ExportOptions struct {
	// SampleIndex selects the sample type as in TopOptions.
	SampleIndex string
	// Name names the profile in a speedscope file.
	Name string
	// Exporter is written into a speedscope file ("perflab 1.2").
	Exporter string
}

// WriteCollapsed writes p as collapsed (folded) stacks, Brendan Gregg's
// format that flamegraph.pl, inferno and speedscope read: one line per
// distinct stack, "root;caller;leaf VALUE", with the selected sample type's
// value (nanoseconds of CPU, bytes...). Inlined frames are frames of their
// own; a ';' in a function's name becomes ':' (it would split the frame).
func WriteCollapsed(w io.Writer, p *profile.Profile, opt ExportOptions) error {
	s := stacks.FromProfile(p)
	vi, err := s.SampleIndex(opt.SampleIndex)
	if err != nil {
		return fmt.Errorf("writing collapsed stacks: %w", err)
	}
	names := exportNames(s)
	bw := bufio.NewWriter(w)
	var line []byte
	for i := range s.NumStacks() {
		v := s.Value(i, vi)
		if v == 0 {
			continue
		}
		st := s.Stack(i)
		line = line[:0]
		for j := len(st) - 1; j >= 0; j-- {
			line = append(line, names[st[j]]...)
			if j > 0 {
				line = append(line, ';')
			}
		}
		line = fmt.Appendf(line, " %d\n", v)
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func exportNames(s *stacks.Set) []string {
	names := make([]string, len(s.Funcs))
	r := strings.NewReplacer(";", ":", "\n", " ", "\r", " ")
	for i, f := range s.Funcs {
		names[i] = r.Replace(f.Name)
		if names[i] == "" {
			names[i] = "?"
		}
	}
	return names
}

// speedscopeFile is speedscope's file format
// (https://www.speedscope.app/file-format-schema.json): shared frames and
// one sampled profile, each sample a list of frame indices from the root.
type speedscopeFile struct {
	Schema   string              `json:"$schema"`
	Shared   speedscopeShared    `json:"shared"`
	Profiles []speedscopeProfile `json:"profiles"`
	Name     string              `json:"name"`
	Active   int                 `json:"activeProfileIndex"`
	Exporter string              `json:"exporter"`
}

type speedscopeShared struct {
	Frames []speedscopeFrame `json:"frames"`
}

type speedscopeFrame struct {
	Name string `json:"name"`
	File string `json:"file,omitempty"`
}

type speedscopeProfile struct {
	Type       string    `json:"type"`
	Name       string    `json:"name"`
	Unit       string    `json:"unit"`
	StartValue int64     `json:"startValue"`
	EndValue   int64     `json:"endValue"`
	Samples    [][]int32 `json:"samples"`
	Weights    []int64   `json:"weights"`
}

// WriteSpeedscope writes p in speedscope's JSON format: one "sampled"
// profile of the selected sample type whose samples are p's distinct
// stacks, weighted by their values. Units speedscope knows (nanoseconds,
// bytes...) are kept; counts are "none".
func WriteSpeedscope(w io.Writer, p *profile.Profile, opt ExportOptions) error {
	s := stacks.FromProfile(p)
	vi, err := s.SampleIndex(opt.SampleIndex)
	if err != nil {
		return fmt.Errorf("writing speedscope profile: %w", err)
	}
	st := s.SampleTypes[vi]
	f := speedscopeFile{Schema: "https://www.speedscope.app/file-format-schema.json", Name: opt.Name, Exporter: opt.Exporter,
		Shared: speedscopeShared{Frames: make([]speedscopeFrame, len(s.Funcs))}}
	for i, fn := range s.Funcs {
		f.Shared.Frames[i] = speedscopeFrame{Name: fn.Name, File: fn.File}
		if fn.Name == "" {
			f.Shared.Frames[i].Name = "?"
		}
	}
	prof := speedscopeProfile{Type: "sampled", Name: st.Type, Unit: speedscopeUnit(st.Unit), Samples: [][]int32{}, Weights: []int64{}}
	for i := range s.NumStacks() {
		v := s.Value(i, vi)
		if v == 0 {
			continue
		}
		stack := s.Stack(i)
		rootFirst := make([]int32, len(stack))
		for j, fr := range stack {
			rootFirst[len(stack)-1-j] = fr
		}
		prof.Samples = append(prof.Samples, rootFirst)
		prof.Weights = append(prof.Weights, v)
		prof.EndValue += v
	}
	if f.Name == "" {
		f.Name = st.Type
	}
	f.Profiles = []speedscopeProfile{prof}
	return json.NewEncoder(w).Encode(f)
}

// speedscopeUnit maps a pprof unit to one of speedscope's.
func speedscopeUnit(u string) string {
	switch u {
	case "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes":
		return u
	}
	return "none"
}
