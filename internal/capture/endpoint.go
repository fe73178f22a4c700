package capture

import (
	"fmt"
	"strings"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// Endpoint is a profile net/http/pprof serves: the name after
// /debug/pprof/, runtime/pprof's name for it. It is the endpoint's own
// vocabulary, not perflab's profile types: EndpointOf maps those to it. A
// service may serve custom profiles under other names.
type Endpoint string

// The endpoints perflab asks for.
const (
	EndpointProfile      Endpoint = "profile"      // CPU, over ?seconds=N
	EndpointAllocs       Endpoint = "allocs"       // every allocation since the start
	EndpointHeap         Endpoint = "heap"         // the live heap (?gc=1: after a collection)
	EndpointGoroutine    Endpoint = "goroutine"    // the goroutines now
	EndpointThreadCreate Endpoint = "threadcreate" // the stacks that created threads
	EndpointMutex        Endpoint = "mutex"        // contended mutexes
	EndpointBlock        Endpoint = "block"        // blocking on synchronisation
	EndpointTrace        Endpoint = "trace"        // a Go execution trace, over ?seconds=N
	EndpointCmdline      Endpoint = "cmdline"      // the program's command line
)

// EndpointOf is the endpoint that serves a profile of type t ("" for a
// type no endpoint serves): the start and end snapshots of the heap and
// the goroutines come from the same endpoint, and the window's
// allocations are the difference of two allocs profiles.
func EndpointOf(t runfmt.ProfileType) Endpoint {
	switch t {
	case runfmt.ProfileCPU:
		return EndpointProfile
	case runfmt.ProfileAllocs:
		return EndpointAllocs
	case runfmt.ProfileHeap, runfmt.ProfileHeapStart:
		return EndpointHeap
	case runfmt.ProfileGoroutine, runfmt.ProfileGoroutineStart:
		return EndpointGoroutine
	case runfmt.ProfileMutex:
		return EndpointMutex
	case runfmt.ProfileBlock:
		return EndpointBlock
	case runfmt.ProfileTrace:
		return EndpointTrace
	}
	return ""
}

// kindTypes maps an endpoint to sample type names one of which its
// profiles carry (runtime/pprof writes these).
var kindTypes = map[Endpoint][]string{
	EndpointProfile:      {runfmt.CPUSample},
	EndpointHeap:         {"alloc_space", "inuse_space"},
	EndpointAllocs:       {"alloc_space", "inuse_space"},
	EndpointGoroutine:    {"goroutine"},
	EndpointThreadCreate: {"threadcreate"},
	EndpointMutex:        {"contentions", "delay"},
	EndpointBlock:        {"contentions", "delay"},
}

// checkKind reports an error when p is not the kind of profile e serves.
// Endpoints it does not know (custom profiles) are not checked.
func checkKind(p *profile.Profile, e Endpoint) error {
	if _, known := kindTypes[e]; !known || isKind(p, e) {
		return nil
	}
	return fmt.Errorf("got a %s profile (sample types %s), want a %s profile", profileKind(p), sampleTypes(p), kindName(e))
}

// profileKind guesses what kind of profile p is from its sample types.
func profileKind(p *profile.Profile) string {
	for _, e := range []Endpoint{EndpointProfile, EndpointHeap, EndpointGoroutine, EndpointThreadCreate, EndpointMutex} {
		if isKind(p, e) {
			return kindName(e)
		}
	}
	return "unknown"
}

// kindName names what an endpoint serves in messages.
func kindName(e Endpoint) string {
	switch e {
	case EndpointProfile:
		return string(runfmt.ProfileCPU)
	case EndpointMutex:
		return "mutex/block"
	}
	return string(e)
}

func sampleTypes(p *profile.Profile) string {
	var s []string
	for _, st := range p.SampleType {
		s = append(s, st.Type+"/"+st.Unit)
	}
	return strings.Join(s, ", ")
}

// isKind tells whether p has one of the sample types e's profiles carry.
func isKind(p *profile.Profile, e Endpoint) bool {
	for _, st := range p.SampleType {
		for _, w := range kindTypes[e] {
			if st.Type == w {
				return true
			}
		}
	}
	return false
}
