package runfmt

import (
	"encoding/json"
	"strings"
)

// ProfileSource is what recorded a saved profile (run.json's
// profiles[].source): the profilers that sampled it, or for a wall-time
// profile made from a recording no profiler makes alone, its time source
// (go-trace, perf-sched).
//
// run.json spells it as one name ("pprof", "go-trace"), or as a list of
// names when several profilers sampled the profile; perflab before schema
// version 3 joined those with "+" ("perf+py-spy"), which reads as the same
// set.
type ProfileSource struct {
	Profilers ProfilerSet
	// Time is set for a profile made from a time source that is not a
	// profiler of its own; py-spy's and rbspy's are their profilers.
	Time TimeSource
}

// SourceProfilers is the source of a profile ps sampled.
func SourceProfilers(ps ...Profiler) ProfileSource {
	return ProfileSource{Profilers: NewProfilerSet(ps...)}
}

// SourceTime is the source of a profile made from the time source t.
func SourceTime(t TimeSource) ProfileSource {
	if p := Profiler(t); Profilers.Contains(p) {
		return SourceProfilers(p)
	}
	return ProfileSource{Time: t}
}

// String names the source as the reports print it: the time source, or
// the profilers joined by "+".
func (s ProfileSource) String() string {
	if s.Time != "" {
		return string(s.Time)
	}
	return s.Profilers.String()
}

// IsZero says nothing is known of what recorded the profile.
func (s ProfileSource) IsZero() bool { return s.Time == "" && s.Profilers == "" }

// MarshalJSON writes one name, or a list for several profilers.
func (s ProfileSource) MarshalJSON() ([]byte, error) {
	if ps := s.Profilers.List(); s.Time == "" && len(ps) > 1 {
		return json.Marshal(ps)
	}
	return json.Marshal(s.String())
}

// UnmarshalJSON reads a name, a list of profilers, or the "+"-joined
// names perflab wrote before schema version 3; a name that is neither a
// time source's nor a profiler's (see Profilers) is refused.
func (s *ProfileSource) UnmarshalJSON(b []byte) error {
	var names []string
	if len(b) > 0 && b[0] == '[' {
		if err := json.Unmarshal(b, &names); err != nil {
			return err
		}
	} else {
		var name string
		if err := json.Unmarshal(b, &name); err != nil {
			return err
		}
		if name == "" {
			*s = ProfileSource{}
			return nil
		}
		if t := TimeSource(name); TimeSources.Contains(t) {
			*s = SourceTime(t)
			return nil
		}
		names = strings.Split(name, "+")
	}
	var out ProfileSource
	for _, n := range names {
		p, err := Profilers.Parse(n)
		if err != nil {
			return &UnknownError{Vocabulary: "profile source", Word: n, Known: sourceWords()}
		}
		out.Profilers = out.Profilers.With(p)
	}
	*s = out
	return nil
}

// sourceWords are the words a ProfileSource reads, for messages.
func sourceWords() []string {
	out := Profilers.Strings()
	for _, t := range TimeSources.List() {
		if !Profilers.Contains(Profiler(t)) {
			out = append(out, string(t))
		}
	}
	return out
}
