package target

import "time"

// WaitLog waits up to d for the launched service's output to be read to
// its end (every process that held it has closed it), so LogTail after an
// exit holds the service's last words. It reports whether the output
// ended; an attached process has none and returns true.
func (p *Process) WaitLog(d time.Duration) bool {
	if p.logDone == nil {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.logDone:
		return true
	case <-t.C:
		return false
	}
}
