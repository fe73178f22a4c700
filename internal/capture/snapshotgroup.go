package capture

import (
	"cmp"
	"path"
	"slices"
	"strconv"
	"strings"

	"perflab/internal/runfmt"
)

// Bounds of the groups a snapshot makes.
const (
	maxGroupPIDs   = 16
	maxGroupFrames = 32
)

// GroupThreads sorts the threads of snapshots by where they wait: their
// state, the frame of the service's own code nearest the top of the stack
// (isUser tells which frames are its), and the call that frame made,
// counted. Groups in the service's code come first, the biggest first;
// threads of several processes (a pre-fork server's workers) that wait at
// the same place make one group. A group that waits for a pool's slot
// counts the threads that hold one: those in the same function past it.
func GroupThreads(snaps []*Snapshot, isUser func(function, file string) bool) []runfmt.StuckGroup {
	var groups []runfmt.StuckGroup
	index := map[string]int{}
	for _, s := range snaps {
		if s == nil {
			continue
		}
		for i := range s.Threads {
			g := describe(s, &s.Threads[i], isUser)
			k := groupKey(&g)
			if j, ok := index[k]; ok {
				merge(&groups[j], &g)
				continue
			}
			index[k] = len(groups)
			groups = append(groups, g)
		}
	}
	countHolders(groups)
	slices.SortStableFunc(groups, func(a, b runfmt.StuckGroup) int {
		return cmp.Or(cmp.Compare(rank(&a), rank(&b)), cmp.Compare(b.Count, a.Count), cmp.Compare(lockRank(&a), lockRank(&b)))
	})
	return groups
}

// rank orders groups: those in the service's code that wait on a request
// first, then those waiting for work, then those not in its code.
func rank(g *runfmt.StuckGroup) int {
	switch {
	case !g.Located():
		return 2
	case g.Idle:
		return 1
	}
	return 0
}

// lockRank puts, among groups of one size, those waiting for a lock
// first: a deadlock is made of them.
func lockRank(g *runfmt.StuckGroup) int {
	switch g.State {
	case "sync.Mutex.Lock", "sync.RWMutex.Lock", "sync.RWMutex.RLock", "semacquire", "BLOCKED (on object monitor)":
		return 0
	}
	if g.Syscall == "futex" {
		return 0
	}
	return 1
}

// groupKey is what makes two threads wait at the same place.
func groupKey(g *runfmt.StuckGroup) string {
	return strings.Join([]string{string(g.Source), g.Unit, string(g.Wait), g.State, g.Blocking, g.Function, g.File,
		strconv.Itoa(g.Line), g.Syscall, g.Peer}, "\x00")
}

// merge adds the thread described by g to the group a.
func merge(a, g *runfmt.StuckGroup) {
	a.Count++
	a.WaitMinutes = max(a.WaitMinutes, g.WaitMinutes)
	if pid := g.PIDs[0]; !slices.Contains(a.PIDs, pid) && len(a.PIDs) < maxGroupPIDs {
		a.PIDs = append(a.PIDs, pid)
	}
}

// describe makes a group of one thread.
func describe(s *Snapshot, t *Thread, isUser func(function, file string) bool) runfmt.StuckGroup {
	g := runfmt.StuckGroup{Count: 1, Unit: runfmt.UnitThread, State: t.State, PIDs: []int{s.PID},
		Source: s.Source, WaitMinutes: t.WaitMinutes}
	if s.Source == runfmt.StackSourcePprof {
		g.Unit = runfmt.UnitGoroutine
	}
	if k := t.Kernel; k != nil && !strings.HasPrefix(k.State, "R") {
		g.Syscall, g.Peer = k.Syscall, k.Peer
	}
	user := slices.IndexFunc(t.Frames, func(f Frame) bool { return isUser(f.Function, f.File) })
	if user >= 0 {
		f := t.Frames[user]
		g.Function, g.File, g.Line = f.Function, f.File, f.Line
		if next := slices.IndexFunc(t.Frames[user+1:], func(f Frame) bool { return isUser(f.Function, f.File) }); next >= 0 {
			c := t.Frames[user+1+next]
			g.Caller, g.CallerFile, g.CallerLine = c.Function, c.File, c.Line
		}
	}
	g.Blocking = blockingCall(s.Source, t, user, g.Syscall)
	g.Wait = waitKind(s.Source, t, g.Syscall)
	g.Pool = waitsForPool(t, user)
	g.Idle = waitsForWork(t, user)
	for _, f := range t.Frames[:min(len(t.Frames), maxGroupFrames)] {
		g.Stack = append(g.Stack, frameText(f))
	}
	return g
}

// blockingCall is the call a thread waits in: the frame its service's
// code called; when the stack ends in the service's code, the system call
// (the tools of interpreted languages show no native frame) or a
// goroutine's state ("chan receive") or the object a JVM thread waits
// for ("a java.lang.Object"); with no frame of the service's, the
// kernel's system call or sleeping function, or the thread's outermost
// frame (what it runs: "net/http.(*connReader).backgroundRead").
func blockingCall(source runfmt.StackSource, t *Thread, user int, syscall string) string {
	switch {
	case user > 0:
		return t.Frames[user-1].Function
	case user == 0 && t.WaitsOn != "":
		return "a " + t.WaitsOn
	case user == 0 && syscall != "":
		return syscall
	case user == 0 && source == runfmt.StackSourcePprof:
		return t.State
	case user == 0:
		return ""
	case source == runfmt.StackSourceKernel && syscall != "":
		return syscall
	case source == runfmt.StackSourceKernel && t.Kernel != nil && t.Kernel.Wchan != "":
		return t.Kernel.Wchan
	}
	return entry(t)
}

// entry is what a thread runs: its outermost frame, past the Go
// runtime's own (runtime.goexit, runtime.mstart, which GOTRACEBACK=system
// and crash show), or its state when it has no other.
func entry(t *Thread) string {
	for i := len(t.Frames) - 1; i >= 0; i-- {
		if fn := t.Frames[i].Function; !strings.HasPrefix(fn, "runtime.") {
			return fn
		}
	}
	return t.State
}

func frameText(f Frame) string {
	if f.File == "" {
		return f.Function
	}
	if f.Line == 0 {
		return f.Function + " " + f.File
	}
	return f.Function + " " + f.File + ":" + strconv.Itoa(f.Line)
}

// goWaits are the kinds of wait of a goroutine's states (as
// runtime/runtime2.go's waitReasonStrings name them).
var goWaits = map[string]runfmt.TimeKind{
	"running": runfmt.TimeRunning, "runnable": runfmt.TimeRunnable, "IO wait": runfmt.TimeNetwork, "sleep": runfmt.TimeSleep,
	"syscall": runfmt.TimeSyscall, "chan receive": runfmt.TimeSync, "chan send": runfmt.TimeSync, "select": runfmt.TimeSync,
	"chan receive (nil chan)": runfmt.TimeSync, "chan send (nil chan)": runfmt.TimeSync, "select (no cases)": runfmt.TimeSync,
	"semacquire": runfmt.TimeSync, "sync.Mutex.Lock": runfmt.TimeSync, "sync.RWMutex.Lock": runfmt.TimeSync,
	"sync.RWMutex.RLock": runfmt.TimeSync, "sync.Cond.Wait": runfmt.TimeSync, "sync.WaitGroup.Wait": runfmt.TimeSync,
	"GC assist wait": runfmt.TimeGC, "GC sweep wait": runfmt.TimeGC, "GC scavenge wait": runfmt.TimeGC, "GC worker (idle)": runfmt.TimeGC,
	"GC worker (active)": runfmt.TimeGC, "garbage collection": runfmt.TimeGC, "garbage collection scan": runfmt.TimeGC,
	"force gc (idle)": runfmt.TimeGC, "finalizer wait": runfmt.TimeGC,
}

// waitKind names a thread's wait in the time ledger's words
// (runfmt.TimeKinds).
func waitKind(source runfmt.StackSource, t *Thread, syscall string) runfmt.TimeKind {
	if source == runfmt.StackSourcePprof {
		if waitsForRuntimeSema(t) {
			return runfmt.TimeGC
		}
		if w, ok := goWaits[t.State]; ok {
			return w
		}
		return runfmt.TimeOther
	}
	if t.Kernel != nil && strings.HasPrefix(t.Kernel.State, "R") || t.State == "active" {
		return runfmt.TimeRunning
	}
	switch st := t.State; {
	case strings.HasPrefix(st, "BLOCKED"), strings.Contains(st, "(parking)"), strings.Contains(st, "(on object monitor)"):
		return runfmt.TimeSync
	case strings.Contains(st, "(sleeping)") && source == runfmt.StackSourceJcmd:
		return runfmt.TimeSleep
	}
	switch syscall {
	case "":
		return runfmt.TimeOther
	case "futex", "semtimedop", "flock":
		return runfmt.TimeSync
	case "nanosleep", "clock_nanosleep", "pause":
		return runfmt.TimeSleep
	}
	if t.Kernel != nil && (t.Kernel.Inode != 0 || netWaits[syscall]) {
		return runfmt.TimeNetwork
	}
	return runfmt.TimeSyscall
}

// semaParking are the runtime's frames of a goroutine parked on a
// semaphore, which a dump shows only with GOTRACEBACK=system.
var semaParking = map[string]bool{
	"runtime.gopark": true, "runtime.goparkunlock": true, "runtime.semacquire1": true, "runtime.semacquire": true,
}

// waitsForRuntimeSema says whether a goroutine in "semacquire" waits on
// one of the runtime's own semaphores rather than a sync primitive's: the
// frame that parked it is not a runtime_Semacquire* of package sync,
// internal/sync or internal/poll (those appear in every dump). The runtime
// takes its own only to start a GC cycle or stop the world (gcStart's
// startSema, gcsema and worldsema, which an allocation reaches through
// mallocgc: "compress/flate.(*compressor).initDeflate" on top of a stack
// in semacquire is its make waiting for the GC). A debug=2 dump hides the
// runtime's frames, so that is all it shows.
func waitsForRuntimeSema(t *Thread) bool {
	if t.State != "semacquire" {
		return false
	}
	for _, f := range t.Frames {
		if semaParking[f.Function] {
			continue
		}
		_, name := path.Split(f.Function)
		return !strings.Contains(name, ".runtime_Semacquire")
	}
	return false
}

// netWaits are the system calls that wait on sockets (or on several
// descriptors, which in a server are its sockets).
var netWaits = map[string]bool{
	"recvfrom": true, "recvmsg": true, "recvmmsg": true, "sendto": true, "sendmsg": true,
	"accept": true, "accept4": true, "connect": true, "poll": true, "ppoll": true,
	"select": true, "pselect6": true, "epoll_wait": true, "epoll_pwait": true,
}
