package runfmt

// CPUOwner is whose work a share of the CPU is, in the ledger's CPU
// account (run.json's ledger.cpu.owners[].owner).
type CPUOwner string

// The owners.
const (
	// OwnerUser is the user's code and the library and runtime work it
	// calls (a stack with a frame of the user's code).
	OwnerUser CPUOwner = "user-code"
	// OwnerGC is the garbage collector's work (Go: background mark
	// workers, assists, sweeping).
	OwnerGC CPUOwner = "gc"
	// OwnerSpin is the runtime spinning on a CPU while it waits for
	// another thread (Go: for a goroutine to stop for the GC, for a
	// runtime lock): on a machine with more runnable threads than cores,
	// the thread waited for is itself waiting for a CPU.
	OwnerSpin CPUOwner = "spin-wait"
	// OwnerRuntime is the rest: the server, the runtime or interpreter,
	// libraries not called from the user's code.
	OwnerRuntime CPUOwner = "runtime"
	// OwnerMeasuring is perflab's own measuring, done by the service: the
	// profile and trace requests it served (Go: net/http/pprof's
	// handlers, runtime/pprof writing profiles, runtime/trace and the
	// runtime's tracer).
	OwnerMeasuring CPUOwner = "measuring"
)

// CPUOwners lists the owners.
var CPUOwners = newVocabulary("cpu owner", OwnerUser, OwnerGC, OwnerSpin, OwnerRuntime, OwnerMeasuring)

// UnmarshalText reads an owner's name, refusing one it does not know.
func (o *CPUOwner) UnmarshalText(b []byte) error { return CPUOwners.unmarshal(o, b) }
