package cli

import (
	"io"
	"os"

	"golang.org/x/term"
)

// Env is the process state the commands use.
type Env struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// StderrTTY says stderr is a terminal (live progress is redrawn in place).
	StderrTTY bool
	// Executable is perflab's own binary (to launch the bundled demo service).
	Executable string
	// Hurry is closed by a second Ctrl-C (see Signals): commands stop
	// waiting, kill the service at once and write what they have.
	Hurry <-chan struct{}
}

// OSEnv is the Env of the running process.
func OSEnv() Env {
	exe, _ := os.Executable()
	return Env{
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
		Getenv:     os.Getenv,
		StderrTTY:  term.IsTerminal(int(os.Stderr.Fd())),
		Executable: exe,
	}
}
