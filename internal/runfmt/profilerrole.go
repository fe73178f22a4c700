package runfmt

// ProfilerRole is what a profiler perflab started was recording, as
// run.json's profiling block accounts for its CPU.
type ProfilerRole string

// The roles.
const (
	// RoleCPU records the CPU profile (py-spy, rbspy, perf record).
	RoleCPU ProfilerRole = "cpu"
	// RoleOffCPU records time off a CPU (py-spy --idle, perf's scheduler
	// events).
	RoleOffCPU ProfilerRole = "off-cpu"
)

// ProfilerRoles lists the roles.
var ProfilerRoles = newVocabulary("profiler role", RoleCPU, RoleOffCPU)

// UnmarshalText reads a role's name, refusing one it does not know.
func (r *ProfilerRole) UnmarshalText(b []byte) error { return ProfilerRoles.unmarshal(r, b) }
