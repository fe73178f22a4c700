package walltime

import (
	"strings"

	"perflab/internal/runfmt"
)

// Which goroutines serve requests, and how a stack turns a wait into a
// runfmt.Wait.
// The tables name functions as the trace does (package path, receiver,
// function); each list says where its names come from.

// servingRoots start a goroutine that serves requests: net/http's
// per-connection goroutine and its HTTP/2 handler goroutines (bundled in
// net/http, or from golang.org/x/net/http2).
var servingRoots = map[string]bool{
	"net/http.(*conn).serve":                          true,
	"net/http.(*http2serverConn).runHandler":          true,
	"golang.org/x/net/http2.(*serverConn).runHandler": true,
}

// servingFrames mark a request goroutine wherever they are on its stack:
// gRPC runs each stream's handler in a goroutine of its own.
var servingFrames = map[string]bool{
	"google.golang.org/grpc.(*Server).handleStream": true,
}

// connRoot is the goroutine that also waits for the next request on a
// keep-alive connection; its waits count only under handlerFrames.
const connRoot = "net/http.(*conn).serve"

// handlerFrames mark the part of a connection goroutine's life that belongs
// to a request: the handler, and finishing its response.
var handlerFrames = map[string]bool{
	"net/http.serverHandler.ServeHTTP":   true,
	"net/http.(*response).finishRequest": true,
}

// loopRoots are goroutines net/http and gRPC start for a connection's
// lifetime (not for one request), and the dialer a request waits for in its
// pool wait: their time is not a request's.
var loopRoots = map[string]bool{
	"net/http.(*connReader).backgroundRead":                              true,
	"net/http.(*persistConn).readLoop":                                   true,
	"net/http.(*persistConn).writeLoop":                                  true,
	"net/http.(*Transport).startDialConnForLocked.func1":                 true,
	"net/http.(*Transport).queueForDial.func1":                           true,
	"net/http.(*http2ClientConn).readLoop":                               true,
	"golang.org/x/net/http2.(*ClientConn).readLoop":                      true,
	"google.golang.org/grpc/internal/transport.(*http2Client).reader":    true,
	"google.golang.org/grpc/internal/transport.(*controlBuffer).get":     true,
	"google.golang.org/grpc/internal/transport.newHTTP2Client.func6":     true,
	"google.golang.org/grpc/internal/transport.NewHTTP2Client.func6":     true,
	"google.golang.org/grpc/internal/transport.(*loopyWriter).run":       true,
	"google.golang.org/grpc/internal/transport.(*http2Server).keepalive": true,
}

// runtimeRoot says a goroutine starting in fn is the runtime's own (a GC
// mark worker, the sweeper, the finalizer goroutine): never a request's,
// though a request goroutine starts it (the first GC cycle starts its
// mark workers from the goroutine whose allocation triggered it), and
// parked between cycles for most of a trace.
func runtimeRoot(fn string) bool { return strings.HasPrefix(fn, "runtime.") }

// clientLoopRoots are the goroutines of the service's own client
// connections (a subset of loopRoots): each call's request waits for them
// to be written, and its answer to be read and handed over.
var clientLoopRoots = map[string]bool{
	"net/http.(*persistConn).readLoop":                                true,
	"net/http.(*persistConn).writeLoop":                               true,
	"net/http.(*http2ClientConn).readLoop":                            true,
	"golang.org/x/net/http2.(*ClientConn).readLoop":                   true,
	"google.golang.org/grpc/internal/transport.(*http2Client).reader": true,
	"google.golang.org/grpc/internal/transport.newHTTP2Client.func6":  true,
	"google.golang.org/grpc/internal/transport.NewHTTP2Client.func6":  true, // grpc-go ≥ 1.77
}

// clientFrames mark I/O on the request's own connection: reading its body,
// writing its response (a slow client).
var clientFrames = map[string]bool{
	"net/http.(*body).Read":                 true,
	"net/http.(*connReader).Read":           true,
	"net/http.checkConnErrorWriter.Write":   true,
	"net/http.(*http2requestBody).Read":     true,
	"net/http.(*http2responseWriter).Write": true,
}

// downstreamPrefixes mark a call to another service: the caller waits on a
// channel for the connection's reader, or reads the response body.
var downstreamPrefixes = []string{
	"net/http.(*persistConn).roundTrip",
	"net/http.(*bodyEOFSignal).Read",
	"net/http.(*http2ClientConn).",
	"net/http.(*http2clientStream).",
	"golang.org/x/net/http2.(*ClientConn).",
	"golang.org/x/net/http2.(*clientStream).",
	"google.golang.org/grpc.(*ClientConn).Invoke",
	"google.golang.org/grpc.(*clientStream).",
	"google.golang.org/grpc.invoke",
}

// poolPrefixes mark a wait for a pooled connection or a semaphore slot.
var poolPrefixes = []string{
	"net/http.(*Transport).getConn",
	"database/sql.(*DB).conn",
	"golang.org/x/sync/semaphore.(*Weighted).Acquire",
	"github.com/jackc/puddle/v2.(*Pool).",
	"github.com/jackc/pgx/v5/pgxpool.(*Pool).Acquire",
	"github.com/redis/go-redis/v9/internal/pool.(*ConnPool).waitTurn",
	"github.com/go-redis/redis/v8/internal/pool.(*ConnPool).waitTurn",
}

// lockFrames are the blocking calls of sync's locks.
var lockFrames = map[string]bool{
	"sync.(*Mutex).Lock":              true,
	"sync.(*RWMutex).Lock":            true,
	"sync.(*RWMutex).RLock":           true,
	"internal/sync.(*Mutex).lockSlow": true,
	"sync.(*Mutex).lockSlow":          true,
	"sync.(*RWMutex).rUnlockSlow":     true,
}

// gcFrames mark a wait for the garbage collector: an allocating goroutine
// blocked in its assist, or for a cycle to start or finish.
var gcFrames = map[string]bool{
	"runtime.gcAssistAlloc": true,
	"runtime.gcParkAssist":  true,
	"runtime.gcMarkDone":    true,
	"runtime.gcStart":       true,
	"runtime.GC":            true,
}

// stackInfo is what the analysis needs to know about one stack.
type stackInfo struct {
	id         int32
	root       string // the outermost frame: the goroutine's start function
	serving    bool   // a request goroutine's stack
	handler    bool   // inside a request (for connection goroutines)
	client     bool   // I/O on the request's own connection
	downstream bool   // inside a call to another service
	pool       bool   // waiting for a pool or semaphore
	lock       bool   // blocked in a lock
	waitGroup  bool
	sleep      bool
	netpoll    bool // blocked in the network poller
	profiler   bool // serving a profile (net/http/pprof): the profiler's request, not the service's
	gc         bool // in the garbage collector's assist or cycle control
}

func newStackInfo(id int32, funcs []string) *stackInfo {
	si := &stackInfo{id: id}
	if len(funcs) == 0 {
		return si
	}
	si.root = funcs[len(funcs)-1]
	si.serving = servingRoots[si.root]
	si.handler = si.root != connRoot
	for _, fn := range funcs {
		switch {
		case servingFrames[fn]:
			si.serving = true
		case handlerFrames[fn]:
			si.handler = true
		case clientFrames[fn]:
			si.client = true
		case lockFrames[fn]:
			si.lock = true
		case fn == "sync.(*WaitGroup).Wait":
			si.waitGroup = true
		case fn == "time.Sleep":
			si.sleep = true
		case gcFrames[fn]:
			si.gc = true
		case fn == "internal/poll.runtime_pollWait" || fn == "internal/poll.(*pollDesc).wait" || strings.HasPrefix(fn, "internal/poll.(*FD)."):
			si.netpoll = true
		}
		if strings.HasPrefix(fn, "net/http/pprof.") {
			si.profiler = true
		}
		if hasPrefix(fn, downstreamPrefixes) {
			si.downstream = true
		}
		if hasPrefix(fn, poolPrefixes) {
			si.pool = true
		}
	}
	return si
}

func hasPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// wait classifies a block for reason (the runtime's block reason, "" when
// the trace gives none) at this stack.
func (si *stackInfo) wait(reason string) runfmt.Wait {
	switch reason {
	case "network":
		return si.netWait()
	case "sleep":
		return runfmt.WaitSleep
	case "GC mark assist wait for work", "wait until GC ends", "GC weak to strong wait":
		return runfmt.WaitGCWait
	case "preempted":
		return runfmt.WaitRunnable
	}
	switch {
	case si.gc:
		return runfmt.WaitGCWait
	case si.pool:
		return runfmt.WaitPool
	case si.downstream:
		return runfmt.WaitDownstream
	}
	switch reason {
	case "chan send", "chan receive", "select":
		return runfmt.WaitChannel
	case "sync.(*Cond).Wait":
		return runfmt.WaitCond
	}
	switch {
	case si.lock:
		return runfmt.WaitLock
	case si.waitGroup:
		return runfmt.WaitGroup
	case reason == "" && si.sleep:
		return runfmt.WaitSleep
	case reason == "" && si.netpoll:
		return si.netWait()
	}
	return runfmt.WaitSync
}

func (si *stackInfo) netWait() runfmt.Wait {
	if si.client {
		return runfmt.WaitClient
	}
	return runfmt.WaitDownstream
}
