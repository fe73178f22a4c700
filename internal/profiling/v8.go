package profiling

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/coder/websocket"
	"github.com/google/pprof/profile"
	"github.com/prometheus/procfs"

	"perflab/internal/capture"
	"perflab/internal/files"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// v8 is V8's own CPU profiler, for node processes, driven through
// node's inspector: it names the line a sample fell on inside a
// JavaScript function, where perf's perf map names the function alone. It
// opens the process's inspector (SIGUSR1, as `node inspect -p PID` does),
// on 127.0.0.1 only and on a port of its own (v8port.go), samples for the
// window and closes the inspector again. Each node process of a service,
// every cluster worker, is one recording. A process whose inspector
// cannot be opened is sampled with perf.
//
// It profiles from inside the process, so it has no binary to look for.
// Its sampler interrupts the JavaScript thread at every tick, whether it
// works or waits (a tick of an idle thread is (idle), left out), and a
// thread runnable but waiting for a CPU takes its interruption when it
// runs: on a busy machine the profile stands for more CPU than was used.
// It samples at perf's rate, as its cost follows the rate as perf's does,
// and answers once it samples (Profiler.start).
var v8 = Profiler{
	Name:     runfmt.ProfilerV8,
	Install:  "node 12 or later (its inspector)",
	Runtimes: []runfmt.Runtime{runfmt.RuntimeNode},
	Gives:    Gives{Lines: true},
	Sampling: Sampling{InService: true, EveryTick: true, SignalsReady: true},
	Hz:       capture.DefaultPerfHz,
	Recorder: v8Recorder{},
}

// v8Recorder is what V8's profiler does.
type v8Recorder struct{}

var _ Recorder = v8Recorder{}

// Bounds of the conversation with the inspector.
const (
	inspectorOpen  = 5 * time.Second  // SIGUSR1 until it listens
	inspectorCall  = 10 * time.Second // a command's answer (Profiler.stop's: the profile)
	maxInspectList = 1 << 20          // /json/list
)

// Record samples job's first process with V8's profiler for the window,
// or with perf when its inspector cannot be opened (a note says why).
func (v8Recorder) Record(ctx context.Context, job Job) (*profile.Profile, time.Duration, error) {
	pid := job.Processes[0].PID
	ins, err := openInspector(ctx, pid)
	if err != nil {
		if job.Note != nil {
			job.Note("v8 "+strconv.Itoa(pid), fmt.Sprintf("node pid %d sampled with perf, without lines: %v", pid, err))
		}
		if job.HandedTo != nil {
			job.HandedTo(perf.Name)
		}
		return perfRecorder{}.Record(ctx, job)
	}
	defer ins.close()
	interval := max(int64(time.Second/time.Microsecond)/int64(max(job.Hz, 1)), 1) // µs
	for _, c := range []struct {
		method string
		params any
	}{{"Profiler.enable", nil}, {"Profiler.setSamplingInterval", map[string]int64{"interval": interval}}, {"Profiler.start", nil}} {
		if _, err := ins.call(ctx, c.method, c.params); err != nil {
			return nil, 0, err
		}
	}
	if tid := profilerThread(ins.proc); tid > 0 && job.StartedThread != nil {
		job.StartedThread(pid, tid)
	}
	job.WaitWindow(ctx)
	res, err := ins.call(context.WithoutCancel(ctx), "Profiler.stop", nil)
	if err != nil {
		return nil, 0, err
	}
	var stopped struct {
		Profile json.RawMessage `json:"profile"`
	}
	if err := json.Unmarshal(res, &stopped); err != nil {
		return nil, 0, fmt.Errorf("inspector of pid %d: Profiler.stop: %w", pid, err)
	}
	prof, err := capture.ParseV8ProfileOptions(stopped.Profile, capture.V8Options{PID: int64(pid), PeriodNanos: interval * 1000,
		Source: func(u string) ([]byte, error) { return scriptSource(pid, u) }})
	return prof, 0, err
}

// scriptSource reads a script of node process pid by the URL V8 names it
// with: a file:// URL, as the process sees its files (its root, for one
// in a container).
func scriptSource(pid int, u string) ([]byte, error) {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "file" || !path.IsAbs(p.Path) {
		return nil, fmt.Errorf("script %q: not a file's URL", u)
	}
	return files.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "root", p.Path), capture.MaxScriptBytes)
}

// profilerThread is the thread of proc V8's profiler samples from
// (v8:ProfEvntProc: it interrupts the JavaScript thread at every tick and
// files the samples), 0 if none is found.
func profilerThread(proc procfs.Proc) int {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return 0
	}
	threads, err := fs.AllThreads(proc.PID)
	if err != nil {
		return 0
	}
	for _, th := range threads {
		if comm, err := th.Comm(); err == nil && strings.HasPrefix(comm, "v8:Prof") {
			return th.PID
		}
	}
	return 0
}

// inspector is a conversation with a node process's inspector.
type inspector struct {
	pid  int
	proc procfs.Proc
	port uint16 // where it listens
	conn *websocket.Conn
	next int64
	// debugPort is the process.debugPort close sets again: the port
	// SIGUSR1 opened the inspector on before perflab moved it.
	debugPort int
}

// openInspector opens pid's inspector with SIGUSR1 and connects to it. It
// refuses a process told to listen elsewhere than on 127.0.0.1 (an
// --inspect-port of another host in its command line or NODE_OPTIONS) and
// a cluster primary (clusterWorkers). A process whose inspector opens on a
// fixed port (9229 unless told otherwise) is moved to a free one first
// (openMoved).
func openInspector(ctx context.Context, pid int) (*inspector, error) {
	proc, err := procfs.NewProc(pid)
	if err != nil {
		return nil, err
	}
	args := nodeArgs(proc)
	if host := inspectHost(args); host != "" {
		return nil, fmt.Errorf("its inspector would listen on %s, not 127.0.0.1: not opened", host)
	}
	if n := len(clusterWorkers(pid)); n > 0 {
		return nil, fmt.Errorf("it is the primary of %d cluster workers, and opening its inspector would make node open each worker's too, before perflab opens them", n)
	}
	if port := inspectPort(args); port != 0 {
		return openMoved(ctx, proc, port)
	}
	return openAt(ctx, proc, 0)
}

// openMoved opens the inspector of proc, which listens on port when
// opened, on a free port instead: it opens it on port, sets
// process.debugPort to 0 through it, closes it and opens it again. The
// port is held meanwhile, so the service's processes take it in turn,
// and each is left on a port of its own for the window; close sets
// process.debugPort back to port.
func openMoved(ctx context.Context, proc procfs.Proc, port int) (*inspector, error) {
	unlock, err := fixedPorts.lock(ctx, port)
	if err != nil {
		return nil, err
	}
	defer func() {
		if unlock != nil {
			unlock()
		}
	}()
	if err := waitPortFree(ctx, proc.PID, port); err != nil {
		return nil, err
	}
	first, err := openAt(ctx, proc, port)
	if err != nil {
		return nil, err
	}
	if int(first.port) != port {
		return first, nil // its process.debugPort was set already
	}
	first.debugPort = 0
	if !first.close() {
		return nil, fmt.Errorf("its inspector on 127.0.0.1:%d did not close within %v", port, inspectorOpen)
	}
	unlock()
	unlock = nil
	ins, err := openAt(ctx, proc, port)
	if err != nil {
		return nil, err
	}
	if int(ins.port) == port {
		// process.debugPort = 0 did not hold: the port is not free for
		// the service's other processes while this one listens on it.
		_ = ins.close()
		return nil, fmt.Errorf("its inspector opens on 127.0.0.1:%d again after process.debugPort = 0", port)
	}
	return ins, nil
}

// openAt opens proc's inspector with SIGUSR1 and connects to it; its
// close sets process.debugPort to debugPort.
func openAt(ctx context.Context, proc procfs.Proc, debugPort int) (*inspector, error) {
	pid := proc.PID
	before, err := service.LoopbackListeners(pid)
	if err != nil {
		return nil, err
	}
	if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
		return nil, fmt.Errorf("SIGUSR1: %w", err)
	}
	port, err := newListener(ctx, proc, before)
	if err != nil {
		return nil, err
	}
	ins := &inspector{pid: pid, proc: proc, port: port, debugPort: debugPort}
	if err := ins.connect(ctx, port); err != nil {
		ins.closeOver(ctx, port)
		return nil, err
	}
	return ins, nil
}

// nodeArgs are proc's command line and the flags of its NODE_OPTIONS.
func nodeArgs(proc procfs.Proc) []string {
	args, _ := proc.CmdLine()
	env, _ := proc.Environ()
	for _, e := range env {
		if opts, ok := strings.CutPrefix(e, "NODE_OPTIONS="); ok {
			args = append(args, strings.Fields(opts)...)
		}
	}
	return args
}

// inspectHost is the host other than 127.0.0.1 (or localhost) that an
// --inspect flag among node's args names, "" for none.
func inspectHost(args []string) string {
	for _, a := range args {
		flag, val, ok := strings.Cut(a, "=")
		if !ok || !strings.HasPrefix(flag, "--inspect") {
			continue
		}
		if _, err := strconv.Atoi(val); err == nil || val == "" {
			continue // a port alone: 127.0.0.1
		}
		host := val
		if i := strings.LastIndexByte(val, ':'); i >= 0 {
			host = val[:i] // [::]:9229, 0.0.0.0:9229
		}
		if host != "127.0.0.1" && host != "localhost" {
			return host
		}
	}
	return ""
}

// newListener waits, at most inspectorOpen, for proc to listen on a port
// of 127.0.0.1 it did not listen on before: its inspector.
func newListener(ctx context.Context, proc procfs.Proc, before map[uint64]uint16) (uint16, error) {
	deadline := time.Now().Add(inspectorOpen)
	for {
		now, err := service.LoopbackListeners(proc.PID)
		if err != nil {
			return 0, err
		}
		for ino, port := range now {
			if _, old := before[ino]; !old {
				return port, nil
			}
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("no inspector listening on 127.0.0.1 %v after SIGUSR1 (started with --disable-sigusr1, its inspector open already, or its port taken)", inspectorOpen)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// connect finds the inspector's target on port (/json/list) and connects
// to its websocket.
func (ins *inspector) connect(ctx context.Context, port uint16) error {
	ctx, cancel := context.WithTimeout(ctx, inspectorCall)
	defer cancel()
	base := "127.0.0.1:" + strconv.Itoa(int(port))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+base+"/json/list", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("inspector of pid %d: %w", ins.pid, err)
	}
	defer resp.Body.Close()
	body, err := files.ReadAll(resp.Body, maxInspectList, resp.ContentLength, "the inspector's /json/list")
	if err != nil {
		return fmt.Errorf("inspector of pid %d: %w", ins.pid, err)
	}
	var targets []struct {
		URL string `json:"webSocketDebuggerUrl"`
	}
	if err := json.Unmarshal(body, &targets); err != nil || len(targets) == 0 || !strings.HasPrefix(targets[0].URL, "ws://"+base+"/") {
		return fmt.Errorf("inspector of pid %d: 127.0.0.1:%d/json/list does not name a target on it", ins.pid, port)
	}
	conn, _, err := websocket.Dial(ctx, targets[0].URL, nil)
	if err != nil {
		return fmt.Errorf("inspector of pid %d: %w", ins.pid, err)
	}
	conn.SetReadLimit(capture.MaxV8ProfileBytes)
	ins.conn = conn
	return nil
}

// call sends a command and returns its result, waiting at most
// inspectorCall; the events in between are skipped.
func (ins *inspector) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, inspectorCall)
	defer cancel()
	ins.next++
	id := ins.next
	msg, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if err := ins.conn.Write(ctx, websocket.MessageText, msg); err != nil {
		return nil, fmt.Errorf("inspector of pid %d: %s: %w", ins.pid, method, err)
	}
	for {
		_, data, err := ins.conn.Read(ctx)
		if err != nil {
			return nil, fmt.Errorf("inspector of pid %d: %s: %w", ins.pid, method, err)
		}
		var ans struct {
			ID     int64           `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(data, &ans) != nil || ans.ID != id {
			continue
		}
		if ans.Error != nil {
			return nil, fmt.Errorf("inspector of pid %d: %s: %s", ins.pid, method, ans.Error.Message)
		}
		return ans.Result, nil
	}
}

// close closes the inspector (perflab opened it), then the connection,
// and says whether the inspector stopped listening within inspectorOpen.
// process.debugPort is set back to what it was before perflab opened it
// (a port opened on 0 becomes process.debugPort, and the next SIGUSR1
// would take that port again).
func (ins *inspector) close() bool {
	// process._debugEnd is what inspector.close() calls. Run while this
	// session is still attached, it stops the inspector under it, and node
	// sometimes crashes at exit: it runs a second after the session ends
	// (Close waits for node's answer).
	ctx, cancel := context.WithTimeout(context.Background(), inspectorCall)
	expr := fmt.Sprintf("process.debugPort = %d; setTimeout(() => process._debugEnd(), 1000)", ins.debugPort)
	_, _ = ins.call(ctx, "Runtime.evaluate", map[string]any{"expression": expr})
	cancel()
	_ = ins.conn.Close(websocket.StatusNormalClosure, "")
	return ins.waitClosed()
}

// waitClosed waits, at most inspectorOpen, until the inspector no longer
// listens, and says whether it stopped.
func (ins *inspector) waitClosed() bool {
	for deadline := time.Now().Add(inspectorOpen); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		now, err := service.LoopbackListeners(ins.pid)
		if err != nil || !slices.Contains(slices.Collect(maps.Values(now)), ins.port) {
			return true
		}
	}
	return false
}

// closeOver closes an inspector perflab opened on port but could not
// use: it tries to connect once more to close it.
func (ins *inspector) closeOver(ctx context.Context, port uint16) {
	if ins.connect(ctx, port) == nil {
		_ = ins.close()
	}
}
