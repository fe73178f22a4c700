package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// Signals turns Ctrl-C and SIGTERM into perflab's three steps: the first
// cancels the returned context (the command stops its load and writes what
// it measured; ab and sweep finish the run under way); the second closes
// hurry (no more waiting: the service is killed at once, profile fetches
// are abandoned, the run is still written); the third exits at once with
// 130, leaving what is left (stale cgroups and their processes) to the
// next perflab run, which removes it.
func Signals() (ctx context.Context, hurry <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	h := make(chan struct{})
	sig := make(chan os.Signal, 3)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		cancel()
		<-sig
		fmt.Fprintln(os.Stderr, "perflab: hurrying: the service is killed now and what was measured is written (Ctrl-C again exits at once)")
		close(h)
		<-sig
		fmt.Fprintln(os.Stderr, "perflab: exiting at once; the next perflab run removes what is left")
		os.Exit(int(ExitInterrupted))
	}()
	return ctx, h
}
