package runfmt

// GoRuntime is the Go runtime's settings as the service ran with them.
type GoRuntime struct {
	// GOMAXPROCS is the number of Ps the service used, read from gctrace's
	// "N P" or the execution trace (GOMAXPROCSSource), not from the
	// environment: Go 1.25+ derives it from the cgroup's CPU limit.
	GOMAXPROCS       int    `json:"gomaxprocs,omitempty"`
	GOMAXPROCSSource string `json:"gomaxprocs_source,omitempty"`
	// GOMAXPROCSEnv is GOMAXPROCS as set in the service's environment.
	GOMAXPROCSEnv string `json:"gomaxprocs_env,omitempty"`
	// GOGC and GOMEMLIMIT as set in the service's environment ("" unset:
	// GOGC=100, no limit).
	GOGC       string `json:"gogc,omitempty"`
	GOMEMLIMIT string `json:"gomemlimit,omitempty"`
	// GOGCEffective is the GOGC the collector's heap goals imply (gctrace:
	// goal = live + (live + stacks + globals) × GOGC/100), which also shows
	// debug.SetGCPercent and a GOMEMLIMIT that binds.
	GOGCEffective float64 `json:"gogc_effective,omitempty"`
}

// HeapGrowth is how the live heap changed over the window: gctrace's live
// heap after each collection, and the in-use heap profile at the start and
// end (both after a forced collection).
type HeapGrowth struct {
	// LiveStartMiB and LiveEndMiB are the live heap at the window's ends;
	// SlopeMiBPerS the trend over every collection in it (least squares).
	LiveStartMiB float64 `json:"live_start_mib"`
	LiveEndMiB   float64 `json:"live_end_mib"`
	SlopeMiBPerS float64 `json:"slope_mib_per_s"`
	Collections  int     `json:"collections"`
	// InuseStartMiB and InuseEndMiB are the heap profiles' in-use MiB
	// after the forced collections at the window's ends (0 without
	// profiles); BytesPerRequest is their growth over the requests.
	InuseStartMiB   float64 `json:"inuse_start_mib,omitempty"`
	InuseEndMiB     float64 `json:"inuse_end_mib,omitempty"`
	BytesPerRequest float64 `json:"bytes_per_request,omitempty"`
	// Sites are the allocation sites whose in-use bytes grew most.
	Sites []HeapSite `json:"sites,omitempty"`
}

// HeapSite is a user function whose retained memory grew: per request,
// and in MiB a second.
type HeapSite struct {
	Function        string  `json:"function"`
	BytesPerRequest float64 `json:"bytes_per_request"`
	MiBPerS         float64 `json:"mib_per_s"`
}
