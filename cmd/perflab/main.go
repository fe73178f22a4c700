// Command perflab is a performance lab for HTTP services: see the README.
package main

import (
	"os"

	"perflab/internal/cli"
)

func main() {
	ctx, hurry := cli.Signals()
	env := cli.OSEnv()
	env.Hurry = hurry
	os.Exit(cli.Main(ctx, os.Args[1:], env))
}
