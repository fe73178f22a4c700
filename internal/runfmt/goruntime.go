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
	// LiveStartMB and LiveEndMB are the live heap at the window's ends;
	// SlopeMBPerS the trend over every collection in it (least squares).
	LiveStartMB float64 `json:"live_start_mb"`
	LiveEndMB   float64 `json:"live_end_mb"`
	SlopeMBPerS float64 `json:"slope_mb_per_s"`
	Collections int     `json:"collections"`
	// InuseStartMB and InuseEndMB are the heap profiles' in-use bytes
	// after the forced collections at the window's ends (0 without
	// profiles); BytesPerRequest is their growth over the requests.
	InuseStartMB    float64 `json:"inuse_start_mb,omitempty"`
	InuseEndMB      float64 `json:"inuse_end_mb,omitempty"`
	BytesPerRequest float64 `json:"bytes_per_request,omitempty"`
	// Sites are the allocation sites whose in-use bytes grew most.
	Sites []HeapSite `json:"sites,omitempty"`
}

// HeapSite is a user function whose retained memory grew.
type HeapSite struct {
	Function        string  `json:"function"`
	BytesPerRequest float64 `json:"bytes_per_request"`
	MBPerS          float64 `json:"mb_per_s"`
}
