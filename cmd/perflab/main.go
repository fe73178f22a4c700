// Command perflab is a performance lab for HTTP services: see the README.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"perflab/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop) // a second Ctrl-C kills at once
	os.Exit(cli.Main(ctx, os.Args[1:], cli.OSEnv()))
}
