package profiling

import (
	"context"
	"fmt"
	"maps"
	"net"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/procfs"

	"perflab/internal/files"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// Where a node process's inspector listens. SIGUSR1 opens it on
// process.debugPort: 9229 unless --inspect-port (or --inspect, or
// --debug-port) says otherwise, so every process of a service, each
// cluster worker included, would take the same port, and all but the
// first would fail to open. A launched service gets a preload that sets
// process.debugPort to 0 (a free port each time); an attached process on
// a fixed port is moved to a free one (openMoved); a cluster primary is
// not opened (clusterWorkers). No port is ever put in NODE_OPTIONS:
// node's cluster module gives each worker the primary's port plus one
// when NODE_OPTIONS names an inspector flag, and port 0 plus one is
// refused ("must be 0 or in range 1024 to 65535", exit 9).

// NodePreloadFile is the preload perflab writes into a launched service's
// run directory and requires through NODE_OPTIONS. It is CommonJS
// (.cjs) whatever the package.json around it says.
const NodePreloadFile = "perflab-node-preload.cjs"

// nodePreload sets process.debugPort to 0 in every node process that
// starts with it; it opens nothing and prints nothing, and a node that
// refuses the setting (a worker thread) keeps its port.
const nodePreload = `// Written by perflab for the node service it launched, which requires it
// through NODE_OPTIONS. SIGUSR1 opens node's inspector on process.debugPort:
// 0 makes each process (every cluster worker too) take a free port of
// 127.0.0.1 when perflab profiles it, rather than all of them 9229.
'use strict';
try {
  process.debugPort = 0;
} catch (e) {
  // A worker thread has no port of its own to set.
}
`

// defaultInspectPort is node's inspector port when nothing sets one.
const defaultInspectPort = 9229

// inspectorFlag is node's own test of NODE_OPTIONS and execArgv for an
// inspector flag (lib/internal/util/inspector.js): a match makes the
// cluster module give its workers a port of their own, the primary's
// plus one.
var inspectorFlag = regexp.MustCompile(`--inspect(?:-brk|-port)?|--debug-port`)

// WithInspectPreload is a launched service's NODE_OPTIONS opts with
// perflab's preload required, written into dir: every node process of
// the service then opens its inspector on a free port when perflab sends
// it SIGUSR1. opts that set an inspector flag already keep their port
// (the service chose it) and are returned as they are, as are opts when
// dir's path itself would read as an inspector flag.
func WithInspectPreload(opts, dir string) (string, error) {
	if inspectorFlag.MatchString(opts) {
		return opts, nil
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return opts, fmt.Errorf("writing node's preload: %w", err)
	}
	path := filepath.Join(dir, NodePreloadFile)
	if inspectorFlag.MatchString(path) {
		return opts, nil
	}
	if err := files.WriteFile(path, []byte(nodePreload)); err != nil {
		return opts, fmt.Errorf("writing node's preload: %w", err)
	}
	return strings.TrimSpace(opts + " --require " + nodeOptionsQuote(path)), nil
}

// nodeOptionsQuote is s as one argument of NODE_OPTIONS: as it is without
// a space, else in double quotes, where a backslash escapes the next
// character.
func nodeOptionsQuote(s string) string {
	if !strings.ContainsAny(s, " \"\\") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// inspectPort is the port SIGUSR1 opens the inspector of a node process
// with args (its command line and NODE_OPTIONS' flags) on: the last
// inspector flag's, else 0 when perflab's preload is required (a free
// port), else node's default.
func inspectPort(args []string) int {
	port := defaultInspectPort
	for _, a := range args {
		if strings.HasSuffix(a, NodePreloadFile) || strings.HasSuffix(a, NodePreloadFile+`"`) {
			port = 0
			continue
		}
		flag, val, ok := strings.Cut(a, "=")
		if !ok || !inspectorFlag.MatchString(flag) || strings.HasPrefix(flag, "--inspect-publish") {
			continue
		}
		if i := strings.LastIndexByte(val, ':'); i >= 0 {
			val = val[i+1:] // host:port, [::]:port
		}
		if n, err := strconv.Atoi(val); err == nil && n >= 0 && n <= 65535 {
			port = n
		}
	}
	return port
}

// fixedPorts lets one process at a time open its inspector on a fixed
// port and move off it: the port is the host's, shared by every process
// of a service that was not told otherwise.
var fixedPorts = portLocks{held: map[int]chan struct{}{}}

// portLocks are locks by port.
type portLocks struct {
	mu   sync.Mutex
	held map[int]chan struct{}
}

// lock waits until port is free of other holders (or ctx ends) and
// returns the function that frees it.
func (l *portLocks) lock(ctx context.Context, port int) (func(), error) {
	l.mu.Lock()
	ch, ok := l.held[port]
	if !ok {
		ch = make(chan struct{}, 1)
		l.held[port] = ch
	}
	l.mu.Unlock()
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// waitPortFree waits, at most inspectorOpen, until nothing listens on
// 127.0.0.1:port, where SIGUSR1 would open pid's inspector: it could not
// open there. A port pid listens on itself is its inspector, open
// already.
func waitPortFree(ctx context.Context, pid, port int) error {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(inspectorOpen)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return nil
		}
		c.Close()
		if own, err := service.LoopbackListeners(pid); err == nil && slices.Contains(slices.Collect(maps.Values(own)), uint16(port)) {
			return fmt.Errorf("its inspector is open already, on 127.0.0.1:%d", port)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("127.0.0.1:%d, where its inspector opens, is taken by another program for %v", port, inspectorOpen)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// OpensInspector says whether a run profiled as c may open a node
// process's inspector (V8's profiler): its preload is needed then only.
func OpensInspector(c Choice) bool {
	p, one := c.Profiler()
	return c != None && (!one || p == runfmt.ProfilerV8)
}

// clusterWorkers are the children of pid that node's cluster module
// forked (NODE_UNIQUE_ID in their environment). When their primary's
// inspector opens (SIGUSR1, inspector.open()), node signals each of them
// to open its own (cluster's NODE_DEBUG_ENABLED): on the port they share
// unless perflab's preload gave each a free one, and ahead of perflab,
// whose SIGUSR1 then opens nothing new.
func clusterWorkers(pid int) []int {
	var out []int
	for _, c := range service.ProcessTree(pid) {
		proc, err := procfs.NewProc(c)
		if err != nil {
			continue
		}
		st, err := proc.Stat()
		if err != nil || st.PPID != pid {
			continue
		}
		env, _ := proc.Environ()
		if slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "NODE_UNIQUE_ID=") }) {
			out = append(out, c)
		}
	}
	return out
}
