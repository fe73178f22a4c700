package capture

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// JVMLoadAgent loads the native agent lib into the HotSpot JVM of pid with
// options, through the JVM's attach mechanism (what jcmd PID
// JVMTI.agent_load and jattach do), and returns the agent's output. It is
// written here rather than run as jcmd because jcmd is a JVM of its own:
// about a second and a half of wall time and 0.3 s of CPU per command on a
// 2-core machine, where this takes a few milliseconds; the protocol is a
// Unix socket and four NUL-terminated strings, with no library to use for
// it in Go.
//
// The JVM opens its attach socket (/tmp/.java_pidNSPID in its mount
// namespace) when it finds an .attach_pidNSPID file in its working
// directory (or /tmp) on a SIGQUIT; until it has, the call waits, up to
// ctx and attachWait.
func JVMLoadAgent(ctx context.Context, pid int, lib, options string) (string, error) {
	nspid := nsPID(pid)
	root := fmt.Sprintf("/proc/%d/root", pid)
	sock := filepath.Join(root, "tmp", ".java_pid"+strconv.Itoa(nspid))
	if _, err := os.Stat(sock); err != nil {
		if err := triggerAttach(ctx, pid, nspid, sock); err != nil {
			return "", err
		}
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return "", fmt.Errorf("the attach socket of JVM %d: %w", pid, err)
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	// Protocol version 1, the command and exactly three arguments: the
	// library, whether its path is absolute, and the agent's options.
	req := strings.Join([]string{"1", "load", lib, "true", options}, "\x00") + "\x00"
	if _, err := io.WriteString(conn, req); err != nil {
		return "", fmt.Errorf("writing to the attach socket of JVM %d: %w", pid, err)
	}
	return ParseAttachReply(io.LimitReader(conn, maxAttachReply))
}

// maxAttachReply bounds the read of the JVM's answer.
const maxAttachReply = 64 << 10

// attachWait bounds the wait for a JVM to open its attach socket once
// signalled: HotSpot starts its attach listener thread on the signal.
const attachWait = 10 * time.Second

// ErrAttachRefused is the error of a JVM that answered a command with an
// error code (or whose agent did): it was attached to, and said no.
var ErrAttachRefused = errors.New("the JVM refused the command")

// ParseAttachReply reads a HotSpot attach answer: its result code on the
// first line (0 for done), then the command's output; for an agent load,
// "return code: N" is the agent's own (0 for started). An answer that is
// not a code, or is an error's, is returned as an error with its output.
func ParseAttachReply(r io.Reader) (string, error) {
	br := bufio.NewReader(r)
	first, err := br.ReadString('\n')
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("reading the JVM's answer: %w", err)
	}
	rest, err := io.ReadAll(br)
	if err != nil {
		return "", fmt.Errorf("reading the JVM's answer: %w", err)
	}
	out := strings.TrimSpace(string(rest))
	code, err := strconv.Atoi(strings.TrimSpace(first))
	switch {
	case err != nil:
		return out, fmt.Errorf("the JVM answered %q, not a result code", shortText(first))
	case code != 0:
		return out, fmt.Errorf("%w: code %d: %s", ErrAttachRefused, code, shortText(out))
	}
	if i := strings.LastIndex(out, "return code: "); i >= 0 {
		rc := strings.TrimSpace(out[i+len("return code: "):])
		if f := strings.Fields(rc); len(f) > 0 && f[0] != "0" {
			return out, fmt.Errorf("%w: the agent returned %s", ErrAttachRefused, f[0])
		}
	}
	return out, nil
}

// shortText is s on one line, at most 200 bytes.
func shortText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// triggerAttach asks the JVM of pid to open its attach socket: an
// .attach_pid file where it looks (its working directory, else /tmp),
// then SIGQUIT, then a wait for the socket. The file is removed again.
func triggerAttach(ctx context.Context, pid, nspid int, sock string) error {
	name := ".attach_pid" + strconv.Itoa(nspid)
	var trigger string
	for _, dir := range []string{fmt.Sprintf("/proc/%d/cwd", pid), fmt.Sprintf("/proc/%d/root/tmp", pid)} {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_WRONLY, 0o600)
		if err == nil {
			f.Close()
			trigger = filepath.Join(dir, name)
			break
		}
	}
	if trigger == "" {
		return fmt.Errorf("JVM %d: could not write %s in its working directory or /tmp", pid, name)
	}
	defer os.Remove(trigger)
	if err := syscall.Kill(pid, syscall.SIGQUIT); err != nil {
		return fmt.Errorf("signalling JVM %d to attach: %w", pid, err)
	}
	ctx, cancel := context.WithTimeout(ctx, attachWait)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(sock); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("JVM %d did not open its attach socket within %v of SIGQUIT (started with -XX:+DisableAttachMechanism, or not a HotSpot JVM?)", pid, attachWait)
		case <-tick.C:
		}
	}
}

// nsPID is pid as the process's own PID namespace numbers it (the last of
// /proc/PID/status's NSpid), pid itself when that cannot be read.
func nsPID(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return pid
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "NSpid:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				if n, err := strconv.Atoi(f[len(f)-1]); err == nil {
					return n
				}
			}
		}
	}
	return pid
}
