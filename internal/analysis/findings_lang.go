package analysis

// Runtimes a FindingInput can name (the values of target's runtime
// detection); "" is treated as Go.
const (
	runtimePython = "python"
	runtimeRuby   = "ruby"
	runtimeNode   = "node"
	runtimeJVM    = "jvm"
)

// waitAdvice is where to look next for time spent off-CPU, in the terms
// of the service's runtime: Go has mutex and block profiles, a pre-fork
// Python or Ruby server queues requests behind busy workers, node blocks
// its event loop.
func waitAdvice(runtime string) string {
	switch runtime {
	case runtimePython, runtimeRuby:
		return " Look at what the handler waits on (database, HTTP calls) and at the workers: with sync workers (gunicorn -w, puma -w and -t) a request that finds every worker busy waits in the listen queue."
	case runtimeNode:
		return " Look at what the handler awaits, and at callbacks that block the event loop: one long callback delays every request behind it."
	case runtimeJVM:
		return " Look at lock contention and thread pools (a thread dump with jstack) and at the latency of what the handler calls."
	}
	return " Look at the mutex and block profiles and at the latency of what the handler calls."
}

// threadsRemedy says, in the runtime's terms, what to do when a service
// runs more busy threads than its budget has cores.
func threadsRemedy(runtime string) string {
	switch runtime {
	case runtimePython, runtimeRuby:
		return "if the service runs more busy workers than its budget has cores, run fewer workers (gunicorn -w, puma -w)."
	case runtimeNode:
		return "if the service runs more busy processes or worker threads than its budget has cores, run fewer."
	case runtimeJVM:
		return "if the service runs more busy threads than its budget has cores, shrink its thread pools."
	}
	return "if the service runs more busy threads than its budget has cores, lower GOMAXPROCS."
}
