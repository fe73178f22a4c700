package stuck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"perflab/internal/capture"
	"perflab/internal/runfmt"
	"perflab/internal/service"
	"perflab/internal/units"
)

// Bounds of a stuck snapshot's record.
const (
	// maxStuckProcesses bounds the processes read (a pre-fork server's
	// workers): each takes a tool's run.
	maxStuckProcesses = 16
	// maxStuckGroups bounds the groups run.json keeps.
	maxStuckGroups = 50
)

// readStacks reads every thread's stack of the service's processes, each
// with its runtime's tool: a Go service's goroutines from its pprof
// endpoint (when perflab profiles it through one), Python's with py-spy
// dump, Ruby's with rbspy snapshot, a JVM's with jcmd Thread.print, and
// the kernel's view of every other process (native code, node, a Go
// service without pprof). The kernel's view is read first and joined to
// the tool's threads: the system call each waits in and the peer of its
// socket. What a process's tool could not read is said in st.
func (c *Config) readStacks(ctx context.Context, st *runfmt.Stuck) []*capture.Snapshot {
	var snaps []*capture.Snapshot
	pids := c.PIDs(ctx)
	goRead := false
	if c.Profiles.Endpoint() != "" {
		pid := 0
		if len(pids) > 0 {
			pid = pids[0]
		}
		snap, err := c.Profiles.Goroutines(ctx, pid, c.SnapshotTimeout)
		st.Processes = append(st.Processes, stuckProcess(pid, runfmt.RuntimeGo, runfmt.StackSourcePprof, snap, err))
		if snap != nil {
			snaps, goRead = append(snaps, snap), true
		}
	}
	for i, pid := range pids {
		if i == maxStuckProcesses {
			st.Notes = append(st.Notes, fmt.Sprintf("%d more processes were not read (at most %d are)", len(pids)-i, maxStuckProcesses))
			break
		}
		if ctx.Err() != nil {
			break
		}
		info, err := service.DetectRuntime(pid)
		if err != nil || info.Runtime == runfmt.RuntimeGo && goRead {
			continue // gone, a kernel thread, or read through pprof
		}
		snap, pr := readProcess(ctx, pid, info.Runtime, c.Profiles.Snapshotter(info.Runtime))
		st.Processes = append(st.Processes, pr)
		if snap != nil {
			snaps = append(snaps, snap)
		}
		if info.Runtime == runfmt.RuntimeGo && !goRead {
			st.Notes = appendOnce(st.Notes, "a Go process without a pprof endpoint: its threads are read from the kernel, not its goroutines (serve net/http/pprof and give --pprof)")
		}
	}
	for _, pr := range st.Processes {
		if pr.Error != "" {
			st.Notes = appendOnce(st.Notes, fmt.Sprintf("process %d: %s", pr.PID, pr.Error))
		}
		if pr.Truncated {
			st.Notes = append(st.Notes, fmt.Sprintf("process %d: the output of %s was cut at %s", pr.PID, pr.Source, units.FormatBytes(capture.MaxSnapshotBytes)))
		}
	}
	return snaps
}

// readProcess reads one process's threads with its runtime's tool (the
// profiler that reads its stacks), or the kernel's view when it has none
// or the tool fails.
func readProcess(ctx context.Context, pid int, runtime runfmt.Runtime, tool func(context.Context, int) (*capture.Snapshot, error)) (*capture.Snapshot, runfmt.StuckProcess) {
	start := time.Now()
	kt, kerr := capture.KernelThreads(pid)
	if kerr != nil {
		return nil, stuckProcess(pid, runtime, runfmt.StackSourceKernel, nil, kerr)
	}
	if peers, err := service.SocketPeers(pid); err == nil {
		for i := range kt {
			if kt[i].Inode != 0 {
				kt[i].Peer = peers[kt[i].Inode]
			}
		}
	}
	if tool != nil {
		snap, err := tool(ctx, pid)
		if err == nil {
			snap.JoinKernel(kt)
			return snap, stuckProcess(pid, runtime, snap.Source, snap, nil)
		}
		// The tool failed: the kernel's view stands in, and says why.
		ks := capture.KernelSnapshot(pid, kt)
		ks.Elapsed = time.Since(start)
		pr := stuckProcess(pid, runtime, runfmt.StackSourceKernel, ks, nil)
		pr.Error = err.Error() + " (the kernel's view stands in)"
		return ks, pr
	}
	ks := capture.KernelSnapshot(pid, kt)
	ks.Elapsed = time.Since(start)
	return ks, stuckProcess(pid, runtime, runfmt.StackSourceKernel, ks, nil)
}

// stuckProcess records how a process was read.
func stuckProcess(pid int, runtime runfmt.Runtime, source runfmt.StackSource, snap *capture.Snapshot, err error) runfmt.StuckProcess {
	pr := runfmt.StuckProcess{PID: pid, Runtime: runtime, Source: source}
	if snap != nil {
		pr.Threads, pr.Bytes, pr.Seconds, pr.Truncated = len(snap.Threads), snap.Bytes, snap.Elapsed.Seconds(), snap.Truncated
	}
	if err != nil {
		pr.Error = err.Error()
		if errors.Is(err, capture.ErrTimeout) || errors.Is(err, context.DeadlineExceeded) {
			pr.Error = "timed out: " + pr.Error
		}
	}
	return pr
}

// groupStacks groups the snapshots' threads by where they wait, with the
// source line of each group's wait, and counts them.
func (c *Config) groupStacks(st *runfmt.Stuck, snaps []*capture.Snapshot) {
	for _, snap := range snaps {
		st.Threads += len(snap.Threads)
	}
	st.Groups = capture.GroupThreads(snaps, c.IsUser)
	if len(st.Groups) > maxStuckGroups {
		n := 0
		for _, g := range st.Groups[maxStuckGroups:] {
			n += g.Count
		}
		st.Notes = append(st.Notes, fmt.Sprintf("%d more groups (%d threads and goroutines) are left out", len(st.Groups)-maxStuckGroups, n))
		st.Groups = st.Groups[:maxStuckGroups]
	}
	src := c.Sources()
	for i := range st.Groups {
		g := &st.Groups[i]
		if g.Located() && g.Line > 0 {
			if text, ok := src.File(g.File).Line(int64(g.Line)); ok {
				g.Text = text
			}
		}
	}
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
