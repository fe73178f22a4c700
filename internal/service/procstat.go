package service

import (
	"bytes"
	"fmt"
	"strconv"
)

// procStat is the part of /proc/PID/stat the sampler uses. Times are in
// clock ticks (USER_HZ, 100 on every Linux architecture perflab supports).
type procStat struct {
	// State is R, S, D, Z (zombie), T...
	State                        byte
	PPID                         int
	UTime, STime, CUTime, CSTime int64
	Threads                      int64
	// StartTime is the start in ticks since boot; with the pid it names one
	// process even when pids are reused.
	StartTime uint64
	// RSSPages is the resident set in pages.
	RSSPages int64
}

// userHZ is the unit of /proc/PID/stat times; the kernel fixes it at 100
// for user space regardless of CONFIG_HZ.
const userHZ = 100

// cpuSeconds is the CPU (user + system) of the process itself.
func (s procStat) cpuSeconds() float64 { return float64(s.UTime+s.STime) / userHZ }

// total is the CPU of the process and of the children it waited for.
func (s procStat) total() int64 { return s.UTime + s.STime + s.CUTime + s.CSTime }

// parseProcStat parses /proc/PID/stat without allocating. The command name
// (field 2) may hold spaces and parentheses, so fields are counted from the
// last ')'.
func parseProcStat(b []byte) (procStat, error) {
	var s procStat
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 > len(b) {
		return s, fmt.Errorf("parsing /proc stat: no ')' after the command name in %q", truncate(b, 60))
	}
	rest := b[i+2:]
	// Field numbers below are proc(5)'s; rest starts at field 3 (state).
	field := 3
	for len(rest) > 0 && field <= 24 {
		j := bytes.IndexByte(rest, ' ')
		tok := rest
		if j >= 0 {
			tok, rest = rest[:j], rest[j+1:]
		} else {
			rest = nil
		}
		if field == 3 && len(tok) > 0 {
			s.State = tok[0]
		} else if field != 3 {
			if err := s.set(field, tok); err != nil {
				return s, err
			}
		}
		field++
	}
	if field <= 24 {
		return s, fmt.Errorf("parsing /proc stat: %d fields, want at least 24", field-1)
	}
	return s, nil
}

func (s *procStat) set(field int, tok []byte) error {
	var dst *int64
	switch field {
	case 4, 22:
		v, err := atoi(tok)
		if field == 4 {
			s.PPID = int(v)
		} else {
			s.StartTime = uint64(v)
		}
		return err
	case 14:
		dst = &s.UTime
	case 15:
		dst = &s.STime
	case 16:
		dst = &s.CUTime
	case 17:
		dst = &s.CSTime
	case 20:
		dst = &s.Threads
	case 24:
		dst = &s.RSSPages
	default:
		return nil
	}
	v, err := atoi(tok)
	*dst = v
	return err
}

// atoi parses a non-negative decimal without allocating (the stat fields
// the sampler reads are never negative; rss can be, briefly, and reads 0).
func atoi(b []byte) (int64, error) {
	if len(b) > 0 && b[0] == '-' {
		_, err := atoi(b[1:])
		return 0, err
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, fmt.Errorf("parsing /proc stat: %q is not a number", truncate(b, 30))
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("parsing /proc stat: %q is not a number", truncate(b, 30))
		}
		v = v*10 + int64(c-'0')
	}
	return v, nil
}

// statPath returns /proc/PID/stat, appended to buf's storage.
func statPath(buf []byte, pid int) []byte {
	buf = append(buf[:0], "/proc/"...)
	buf = strconv.AppendInt(buf, int64(pid), 10)
	return append(buf, "/stat"...)
}
