package runfmt

// Role is a function's part in a finding: run.json's
// findings[].evidence.functions[].role.
type Role string

// The roles.
const (
	// RoleCulprit: the code to change first (the finding's first
	// function).
	RoleCulprit Role = "culprit"
	// RoleEntry: the library entry point a cost goes through
	// (fmt.Sprintf, encoding/json.Marshal).
	RoleEntry Role = "entry"
	// RoleCallee: user code the culprit's cost is spread over.
	RoleCallee Role = "callee"
	// RoleLibrary: the culprit's costliest library callee.
	RoleLibrary Role = "library"
	// RolePath: a step from the costliest user code down to the culprit.
	RolePath Role = "path"
	// RoleSite: another place of the same wait or growth.
	RoleSite Role = "site"
	// RoleHolder: code that released the lock others waited for.
	RoleHolder Role = "holder"
	// RoleAllocator: a user function that allocates much per request.
	RoleAllocator Role = "allocator"
	// RoleLibraryFunc: the library function below the culprit's library
	// call that holds most of that call's cost, past the entry frames
	// that only pass it on, at its costliest line (FuncEvidence.Line).
	RoleLibraryFunc Role = "library-function"
)

// Roles lists the roles.
var Roles = newVocabulary("role", RoleCulprit, RoleEntry, RoleCallee, RoleLibrary, RolePath, RoleSite, RoleHolder, RoleAllocator, RoleLibraryFunc)

// UnmarshalText reads a role's name, refusing one it does not know.
func (r *Role) UnmarshalText(b []byte) error { return Roles.unmarshal(r, b) }
