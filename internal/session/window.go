package session

import (
	"context"
	"net/netip"
	"time"

	"perflab/internal/decide"
	"perflab/internal/window"
)

// noWarmupWait is how long a window without a warm-up waits for the
// kernel's programs to load (0.2–0.6 s here): a window that starts
// before they are loaded goes without them.
const noWarmupWait = time.Second

// markConns starts the kernel's timing as the warm-up starts, and watches
// the warm-up's connections (see window.Conns).
func (s *Session) markConns() {
	s.kern = window.StartKernel(s.proc, window.Ports(s.cfg.Load.Targets), s.cfg.Load.DisableKeepAlive, window.WatchConns(s.proc, s.cfg.Warmup))
}

// startKernel makes sure the kernel's timing runs for the window: started
// now when there was no warm-up (in the background: a window that starts
// before its programs are loaded goes without), started again with the
// accept backlog when the warm-up opened a connection per request; and it
// finds the local processes behind the service's peers.
func (s *Session) startKernel() {
	if s.kern == nil {
		s.kern = window.StartKernel(s.proc, window.Ports(s.cfg.Load.Targets), s.cfg.Load.DisableKeepAlive, nil)
		s.kern.Wait(noWarmupWait) // a moment for the programs to load; the window does not wait longer
	}
	if s.proc == nil {
		return
	}
	s.kern.ForWindow(s.cfg.Load.DisableKeepAlive, s.proc.PIDs())
}

// watchPeers samples the service's connections until the returned
// function is called.
func (s *Session) watchPeers() (stop func()) {
	if s.proc == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var notice func([]netip.AddrPort)
	if s.kern != nil && s.kern.Peers() != nil {
		notice = s.kern.Peers().Notice
	}
	s.peers = window.StartPeers(ctx, s.proc.PIDs, s.cfg.Load.Targets, &s.loadPorts, notice)
	return cancel
}

// kernelInput is the kernel's timing of the window for the decide stage.
func (s *Session) kernelInput() decide.Kernel {
	w, ok, why := s.kern.Window()
	in := decide.Kernel{Window: w, OK: ok, Why: why}
	if k := s.kern; k != nil {
		in.Ports, in.Backlog = k.Timed()
		in.Added = k.Added()
		if p := k.Peers(); p != nil {
			in.Peers = p.Inputs
		}
	}
	return in
}
