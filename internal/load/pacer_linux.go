package load

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// pacer sleeps until an arrival's intended time. time.Sleep is not used: the
// Go runtime waits for timers in epoll with millisecond granularity, which
// would add up to a millisecond of send lag to every arrival. A timerfd read
// through the netpoller wakes within tens of microseconds and holds no P
// while it waits.
type pacer struct {
	fd  int
	f   *os.File
	buf [8]byte
}

func newPacer() (*pacer, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &pacer{fd: fd, f: os.NewFile(uintptr(fd), "perflab-pacer")}, nil
}

// sleep waits for d (at most maxNap, so the caller can check for a stop).
func (p *pacer) sleep(d time.Duration) {
	if d > maxNap {
		d = maxNap
	}
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if err := unix.TimerfdSettime(p.fd, 0, &spec, nil); err != nil {
		time.Sleep(d)
		return
	}
	_, _ = p.f.Read(p.buf[:]) // the expiration count; the wake-up is what matters
}

func (p *pacer) close() { p.f.Close() }
