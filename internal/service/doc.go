// Package target launches or attaches to the service under test, confines a
// launched service to a CPU and memory budget with real cgroups (v1 or v2),
// waits until it answers HTTP, samples what it consumes, and stops it leaving
// no process and no cgroup behind.
//
// # Usage
//
//	p, err := service.Launch(ctx, service.LaunchConfig{
//		Command: []string{"./server"}, Budget: service.Budget{CPUs: 1},
//		LogPath: "run/target.log", Name: "server",
//	})
//	defer p.Stop(5 * time.Second)
//	err = service.WaitReady(ctx, service.ReadyProbe{URL: "http://127.0.0.1:8080/"}, 30*time.Second, p)
//	s := service.NewSampler(p, 0)
//	go s.Run(ctx)
//	... load ...
//	sum := service.Window(s.Samples(), from, to, p.CPULimitCores(), runtime.NumCPU())
//
// # Cgroups
//
// [CgroupVersion] reports the host's layout. On a pure cgroup v2 host a
// launched service gets /sys/fs/cgroup/perflab-NAME-PID-RAND with cpu.max and
// memory.max, and is placed there by clone(CLONE_INTO_CGROUP) before it runs
// any code. On a v1 (or hybrid) host it gets a group of that name in the cpu,
// cpuacct and memory hierarchies, nested under perflab's own group, and a
// tiny shell gate holds the service until its pid is in the group. Either
// way children it forks are included, and CPU, throttling and memory are read
// from the group. When groups cannot be created (not root, read-only
// /sys/fs/cgroup), the service still runs, is measured through /proc, and
// [Process.Warnings] says the budget is not enforced.
//
// # Measurement through /proc
//
// Attached services without a cgroup of their own, and launched services
// without a cgroup, are measured by walking the process tree from the main
// pid (the children files of /proc/PID/task/TID) and summing utime, stime,
// cutime and cstime of /proc/PID/stat: children that exited and were waited
// for by a parent inside the tree stay counted through their parent's cutime.
//
// # The machine beside the service
//
// [MachineSampler] samples the host while the service is measured: its CPU
// time from /proc/stat (user, system, interrupts, iowait, steal), perflab's
// own CPU and run-queue wait, and, in a pass over every process paced to
// cost at most 0.2% of a core, which other processes used the CPUs.
// [Assess] turns a window of it into run.json's quality: clean or noisy,
// and why. [ListenerOwner] finds the process behind a listening socket
// (/proc/net/tcp inode → /proc/PID/fd), which proves whose a pprof
// endpoint is.
//
// # CPUs of their own
//
// [Budget].CPUSet confines a launched service to some CPUs: a cpuset group
// (v1 or v2) where the host has the controller, and always the CPU affinity
// of the thread that forks it, so the service and its children inherit it
// (the only confinement on a host without cpusets, with a warning).
// [PinSelf] confines perflab's own threads for a run.
package service
