package session

import "perflab/internal/decide"

// Collect is the collect stage, once the service is stopped: what the
// run measured, for the decide stage.
func (s *Session) Collect() decide.Input {
	in := decide.Input{Run: s.run, Profiles: s.prof, Sampler: s.sampler, Machine: s.machine, GC: &s.gc, Env: s.env,
		LimitCores: s.limitCores, LimitMemory: s.limitMemory, PIDs: s.pids, Owners: s.owners,
		Settings: s.settings(), Warn: s.warn, Degrade: s.degrade}
	in.Peers.OtherClients, in.Peers.Clients = s.peers.Clients()
	in.Peers.List = s.peers.List()
	in.Kernel = s.kernelInput()
	return in
}

// settings are the run's settings the decide stage reads.
func (s *Session) settings() decide.Settings {
	c := &s.cfg
	return decide.Settings{SLO: c.SLO, GOGC: envValue(c.Env, "GOGC"), Command: c.Command, Dir: c.Dir, PID: c.PID, Src: c.Src, UserCode: c.UserCode,
		Trace: c.Trace, NoTrace: c.NoTrace}
}
