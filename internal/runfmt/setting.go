package runfmt

// Setting is a setting or a source a finding read, in words: the keys of
// run.json's findings[].settings.
type Setting string

// The settings.
const (
	// SettingSource: where the finding's main figure was read (for the
	// GC's share "gctrace" or "cpu-profile"; for a live heap "gctrace" or
	// "heap-profiles"; for a request's time split its time source).
	SettingSource Setting = "source"
	// SettingGOGC: GOGC as the service ran with it.
	SettingGOGC Setting = "gogc"
	// SettingGOMAXPROCSSource and SettingGOMAXPROCSEnv: where the
	// service's GOMAXPROCS was read, and GOMAXPROCS as its environment
	// set it.
	SettingGOMAXPROCSSource Setting = "gomaxprocs_source"
	SettingGOMAXPROCSEnv    Setting = "gomaxprocs_env"
	// SettingProfile: the profile a lock finding read (mutex, block).
	SettingProfile Setting = "profile"
	// SettingWaitMethod: how the time a request waited for a CPU was
	// found (WaitFromLatency, WaitFromLatencyAndTrace, WaitFromTrace).
	SettingWaitMethod Setting = "wait_method"
	// SettingLockProfiles: "off" when a Go service had neither a mutex
	// nor a block profile to look at.
	SettingLockProfiles Setting = "lock_profiles"
	// SettingRuntime: what the service runs (a Runtime), for advice in its
	// terms.
	SettingRuntime Setting = "runtime"
	// SettingDatabase: the database server a finding's queries went to
	// (LedgerPeer.Database).
	SettingDatabase Setting = "database"
	// SettingCost: what a hot user function's cost counts, CostInclusive
	// (absent in runs before it was written), CostRest or CostOwn.
	SettingCost Setting = "cost"
	// SettingServer: the service's HTTP server when the advice names its
	// own setting (ServerJDKHTTPServer).
	SettingServer Setting = "server"
)

// The values of SettingServer.
const (
	// ServerJDKHTTPServer is the JDK's com.sun.net.httpserver.HttpServer.
	ServerJDKHTTPServer = "jdk-httpserver"
)

// The values of SettingCost.
const (
	// CostInclusive is the function and everything it calls, user code
	// included (its region of the profile).
	CostInclusive = "inclusive"
	// CostRest is the function and what it calls, but not the stacks
	// that costlier findings own (their regions of the profile, set aside
	// first).
	CostRest = "rest"
	// CostOwn is the cost charged to the function: its own code and the
	// library and runtime code it calls, not the user code it calls (the
	// "self+called" of every page's user-code table).
	CostOwn = "own"
)

// The values of SettingWaitMethod and SettingSource that are not another
// vocabulary's words.
const (
	WaitFromLatency         = "latency"           // mean latency beyond the CPU per request
	WaitFromLatencyAndTrace = "latency-and-trace" // that, less the waits a trace names
	WaitFromTrace           = "trace"             // runnable, or held off a CPU, in a trace
	WaitFromLedger          = "ledger"            // the request ledger's rows
	SourceGCTrace           = "gctrace"           // the runtime's gctrace lines
	SourceCPUProfile        = "cpu-profile"       // the CPU profile's GC workers and assists
	SourceHeapProfiles      = "heap-profiles"     // in-use heap profiles at the window's ends
	SourceGoScheduler       = "go-scheduler"      // a Go program's scheduler trace: its Ps running goroutines
	SourceSampler           = "sampler"           // a batch program's CPU and waits for a CPU, read every step
	SourcePerfSamples       = "perf-samples"      // the times of its CPU profile's samples (no waits)
	SettingOff              = "off"
)

// SettingNames lists the settings.
var SettingNames = newVocabulary("setting",
	SettingSource, SettingGOGC, SettingGOMAXPROCSSource, SettingGOMAXPROCSEnv,
	SettingProfile, SettingWaitMethod, SettingLockProfiles, SettingRuntime, SettingDatabase, SettingCost,
	SettingServer,
)

// UnmarshalText reads a setting's name, refusing one it does not know.
func (s *Setting) UnmarshalText(b []byte) error { return SettingNames.unmarshal(s, b) }

// Settings are a finding's settings by name.
type Settings map[Setting]string

// With sets setting s to v, making the map when it is nil; an empty v
// sets nothing.
func (ss Settings) With(s Setting, v string) Settings {
	if v == "" {
		return ss
	}
	if ss == nil {
		ss = Settings{}
	}
	ss[s] = v
	return ss
}
