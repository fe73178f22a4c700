package capture

import (
	"slices"
	"strings"

	"perflab/internal/runfmt"
)

// poolCalls are the calls in which a thread waits for a slot of a pool or
// a semaphore (a connection, a worker, a permit), in the languages'
// standard libraries and their common pools. A thread found there with
// many others while few run past it is a pool exhausted: its holders are
// slow or stuck, or it is too small.
var poolCalls = []string{
	// Go
	"database/sql.(*DB).conn", "golang.org/x/sync/semaphore.(*Weighted).Acquire",
	"github.com/jackc/puddle", "pgxpool.(*Pool).Acquire", "pool.(*ConnPool).waitTurn",
	// Python
	"Semaphore.acquire", "QueuePool._do_get", "HTTPConnectionPool._get_conn",
	"BlockingConnectionPool.get_connection", "ThreadPoolExecutor.submit",
	// Java
	"java.util.concurrent.Semaphore.acquire", "HikariPool.getConnection",
	"GenericObjectPool.borrowObject", "ConcurrentBag.borrow",
	// Ruby
	"ConnectionPool#checkout", "ConnectionPool::TimedStack#pop",
}

// waitsForPool tells whether a thread waits for a pool's slot: a frame
// between the top of its stack and the service's frame (user; the whole
// stack when it has none) is a pool's, or a JVM thread is parked on a
// semaphore.
func waitsForPool(t *Thread, user int) bool {
	if strings.Contains(t.WaitsOn, "Semaphore") {
		return true
	}
	frames := t.Frames
	if user >= 0 {
		frames = frames[:user]
	}
	return callsAny(frames, poolCalls)
}

// workLoops are the calls in which a server's threads wait for work
// rather than on a request: accept loops, event loops, signal handlers.
var workLoops = []string{
	// Go
	"net/http.(*Server).Serve", "net.(*TCPListener).Accept", "net.(*UnixListener).Accept",
	"google.golang.org/grpc.(*Server).Serve", "os/signal.",
	// Python
	"BaseServer.serve_forever", "BaseEventLoop.run_forever", "Arbiter.run", "Arbiter.sleep", "socket.accept",
	// Java
	"java.net.ServerSocket.accept", "sun.nio.ch.ServerSocketChannelImpl.accept",
	// Ruby
	"TCPServer#accept", "Puma::Server#handle_servers",
}

// waitsForWork tells whether a thread waits for work: a frame from the
// top of its stack to the service's frame (user) is a server's loop.
func waitsForWork(t *Thread, user int) bool {
	return callsAny(t.Frames[:min(user+1, len(t.Frames))], workLoops) || waitsForExit(t)
}

// exitWaits are the states in which a Go program's main goroutine waits
// for its end: a select on a signal and its servers' errors, select {},
// a channel receive, a WaitGroup.
var exitWaits = []string{"select", "select (no cases)", "chan receive", "sync.WaitGroup.Wait"}

// waitsForExit tells whether a goroutine is a Go program's main goroutine
// (nothing created it, and its outermost frame past the runtime's is
// main.main) waiting in one of exitWaits: a server's main goroutine waits
// there for a signal or its listeners' errors, not on a request.
func waitsForExit(t *Thread) bool {
	if t.CreatedBy != nil || !slices.Contains(exitWaits, t.State) {
		return false
	}
	for i := len(t.Frames) - 1; i >= 0; i-- {
		if fn := t.Frames[i].Function; !strings.HasPrefix(fn, "runtime.") {
			return fn == "main.main"
		}
	}
	return false
}

func callsAny(frames []Frame, calls []string) bool {
	for _, f := range frames {
		for _, p := range calls {
			if strings.Contains(f.Function, p) {
				return true
			}
		}
	}
	return false
}

// countHolders sets, for each group that waits for a pool's slot, how
// many threads hold one: those of the same process's tool in the same
// function of the service's code that do not wait for the pool.
func countHolders(groups []runfmt.StuckGroup) {
	for i := range groups {
		g := &groups[i]
		if !g.Pool || g.Function == "" {
			continue
		}
		for j := range groups {
			h := &groups[j]
			if !h.Pool && h.Function == g.Function && h.Source == g.Source {
				g.Holders += h.Count
			}
		}
	}
}
