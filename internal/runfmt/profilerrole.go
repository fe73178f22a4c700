package runfmt

import "slices"

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

var profilerRoleWords = []ProfilerRole{RoleCPU, RoleOffCPU}

// ProfilerRoles lists the roles.
func ProfilerRoles() []ProfilerRole { return slices.Clone(profilerRoleWords) }

// ParseProfilerRole returns the role named s, or an error naming s and the
// roles.
func ParseProfilerRole(s string) (ProfilerRole, error) {
	return parseWord("profiler role", ProfilerRoles(), s)
}

// String is the role's name.
func (r ProfilerRole) String() string { return string(r) }

// UnmarshalText reads a role's name, refusing one it does not know.
func (r *ProfilerRole) UnmarshalText(b []byte) error { return unmarshalWord(r, b, ParseProfilerRole) }
