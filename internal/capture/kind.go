package capture

import (
	"fmt"
	"strings"

	"github.com/google/pprof/profile"
)

// kindTypes maps a net/http/pprof profile name to sample type names one of
// which its profiles carry (runtime/pprof writes these).
var kindTypes = map[string][]string{
	"profile":      {"cpu"},
	"heap":         {"alloc_space", "inuse_space"},
	"allocs":       {"alloc_space", "inuse_space"},
	"goroutine":    {"goroutine"},
	"threadcreate": {"threadcreate"},
	"mutex":        {"contentions", "delay"},
	"block":        {"contentions", "delay"},
}

// checkKind reports an error when p is not the kind of profile name asks
// for. Names it does not know (custom profiles) are not checked.
func checkKind(p *profile.Profile, name string) error {
	if _, known := kindTypes[name]; !known || isKind(p, name) {
		return nil
	}
	return fmt.Errorf("got a %s profile (sample types %s), want a %s profile", profileKind(p), sampleTypes(p), kindName(name))
}

// profileKind guesses what kind of profile p is from its sample types.
func profileKind(p *profile.Profile) string {
	for _, name := range []string{"profile", "heap", "goroutine", "threadcreate", "mutex"} {
		if isKind(p, name) {
			return kindName(name)
		}
	}
	return "unknown"
}

func kindName(name string) string {
	switch name {
	case "profile":
		return "cpu"
	case "mutex":
		return "mutex/block"
	}
	return name
}

func sampleTypes(p *profile.Profile) string {
	var s []string
	for _, st := range p.SampleType {
		s = append(s, st.Type+"/"+st.Unit)
	}
	return strings.Join(s, ", ")
}

// isKind tells whether p has one of the sample types of the named kind.
func isKind(p *profile.Profile, name string) bool {
	for _, st := range p.SampleType {
		for _, w := range kindTypes[name] {
			if st.Type == w {
				return true
			}
		}
	}
	return false
}
