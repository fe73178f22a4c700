// Command fmtprint serves GET /file?name=N: a file from an in-memory cache
// of large responses. In -mode=buggy a leftover debug print formats the
// whole cached response per request (main.logRequest), like the case
// study's fmt.Println of a protobuf. -stdout prints to stdout instead of
// io.Discard; -kib sets the size of a cached file (24 KiB prints about
// 88 KB per request, 100 KiB about 370 KB).
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"

	"perflab/testdata/services/svc"
)

// cacheResponse is what the upstream cache returns for a file.
type cacheResponse struct {
	Name     string
	Data     []byte
	Metadata map[string]string
}

const files = 16

var (
	toStdout bool
	fileKiB  int
)

func main() {
	os.Exit(svc.Run(svc.Service{
		Name: "fmtprint",
		Flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&toStdout, "stdout", false, "print the debug line to stdout instead of discarding it")
			fs.IntVar(&fileKiB, "kib", 24, "size of each cached file in KiB")
		},
		Handler: handler,
	}, os.Args[1:], os.Stdout, os.Stderr))
}

func handler(buggy bool) (http.Handler, error) {
	if fileKiB < 1 || fileKiB > 64<<10 {
		return nil, fmt.Errorf("-kib %d: must be from 1 to 65536", fileKiB)
	}
	fileSize := fileKiB << 10
	cache := map[string]*cacheResponse{}
	for i := range files {
		r := &cacheResponse{Name: strconv.Itoa(i), Data: make([]byte, fileSize), Metadata: map[string]string{}}
		for j := range r.Data {
			r.Data[j] = byte(i*31 + j*7)
		}
		for j := range 10 {
			r.Metadata["k"+strconv.Itoa(j)] = "value " + strconv.Itoa(i*j)
		}
		cache[r.Name] = r
	}
	var out io.Writer = io.Discard
	if toStdout {
		out = os.Stdout
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, ok := cache[r.URL.Query().Get("name")]
		if !ok {
			d = cache["0"]
		}
		if buggy {
			logRequest(out, d)
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(d.Data)
	}), nil
}

// logRequest is the planted cost: a debug print of the whole response.
//
// It is never inlined, so every profiler (perf too) names it.
//
//go:noinline
func logRequest(out io.Writer, d *cacheResponse) {
	fmt.Fprintln(out, "resp", d, nil)
}
