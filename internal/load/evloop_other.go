//go:build !linux

package load

// evLoop exists on Linux only; elsewhere the goroutine engine serves all loads.
type evLoop struct{}

func evLoopsFor(*Attacker) []*evLoop { return nil }
func (l *evLoop) run()               {}
func (l *evLoop) interrupt()         {}
