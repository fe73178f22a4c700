package session

import (
	"time"

	"perflab/internal/service"
	"perflab/internal/window"
)

// machineInterval is how often the machine beside the service is sampled.
const machineInterval = 200 * time.Millisecond

// startMachine starts sampling the machine for the whole session.
func (s *Session) startMachine() {
	s.machine, s.stopMachine = SampleMachine(machineInterval)
}

// SampleMachine samples the machine every interval until stop is
// called.
func SampleMachine(interval time.Duration) (m *service.MachineSampler, stop func()) {
	m = service.NewMachineSampler(interval)
	return m, window.RunUntilStopped(m.Run)
}

// pinLoad confines perflab's threads to --load-cpus once the service runs
// (it was launched with its own CPUs, not perflab's), and returns the
// function that frees them.
func (s *Session) pinLoad() func() {
	if len(s.cfg.LoadCPUs) == 0 {
		return func() {}
	}
	restore, err := service.PinSelf(s.cfg.LoadCPUs)
	if err != nil {
		s.warn(err.Error())
	}
	return restore
}

// edgeScan scans the machine's processes at a load's start and end, so the
// other processes of its window are counted over the window itself.
func (s *Session) edgeScan() {
	if s.machine != nil {
		s.machine.ScanNow()
	}
}
