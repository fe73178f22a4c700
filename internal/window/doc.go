// Package window measures the service beside the load over a run's
// measured window: the kernel's timing of its threads and connections
// (Kernel, started as the warm-up starts and read at the window's
// edges), whether the load's connections churn (Conns), the connections
// the service holds to its peers and those other clients made to it
// (PeerSampler), and the CPU of the local processes behind its peers
// (PeerCPU). Package lab starts each and reads it at the window's
// edges; the decide stage reads what they measured.
package window
