// Command server is the service the README's examples load: perflab's demo
// service as a program of its own (four endpoints with planted costs, /
// fanning out to them, POST /ingest taking log lines such as
// examples/ingest.log, and net/http/pprof on a port of its own). Build it
// and run it from the repository's root:
//
//	go build -o server ./examples/server
//	./server -addr 127.0.0.1:8080 -pprof-addr 127.0.0.1:6060
//
// It prints "listening on URL" once it listens, and stops on SIGTERM or
// Ctrl-C. -fixed removes the planted costs (the fixed build).
package main

import (
	"os"

	"perflab/internal/demo"
)

func main() { os.Exit(demo.Main(os.Args[1:], os.Stdout, os.Stderr)) }
