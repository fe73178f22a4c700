package findings

import "perflab/internal/runfmt"

// waitAdvice is where to look next for time spent off-CPU, in the terms
// of the service's runtime: Go has mutex and block profiles, a pre-fork
// Python or Ruby server queues requests behind busy workers, node blocks
// its event loop.
func waitAdvice(runtime runfmt.Runtime) string {
	switch runtime {
	case runfmt.RuntimePython, runfmt.RuntimeRuby:
		return " Look at what the handler waits on (database, HTTP calls) and at the workers: with sync workers (gunicorn -w, puma -w and -t) a request that finds every worker busy waits in the listen queue."
	case runfmt.RuntimeNode:
		return " Look at what the handler awaits, and at callbacks that block the event loop: one long callback delays every request behind it."
	case runfmt.RuntimeJVM:
		return " Look at lock contention and thread pools (a thread dump with jstack) and at the latency of what the handler calls."
	}
	return " Look at the mutex and block profiles and at the latency of what the handler calls."
}

// threadsRemedy says, in the runtime's terms, what to do when a service
// runs more busy threads than its budget has cores.
func threadsRemedy(runtime runfmt.Runtime) string {
	switch runtime {
	case runfmt.RuntimePython, runfmt.RuntimeRuby:
		return "if the service runs more busy workers than its budget has cores, run fewer workers (gunicorn -w, puma -w)."
	case runfmt.RuntimeNode:
		return "if the service runs more busy processes or worker threads than its budget has cores, run fewer."
	case runfmt.RuntimeJVM:
		return "if the service runs more busy threads than its budget has cores, shrink its thread pools."
	}
	return "if the service runs more busy threads than its budget has cores, lower GOMAXPROCS."
}
