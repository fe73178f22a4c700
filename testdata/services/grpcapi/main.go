// Command grpcapi is the HTTP API of the pprof case study: GET
// /image?name=N asks a local gRPC cache (grpccache, -upstream HOST:PORT)
// for image N and answers its bytes. In -mode=buggy main.getImage keeps a
// leftover debug line, fmt.Println of the cache's answer: fmt calls the
// protobuf message's String method, which formats its 20-50 KiB of bytes
// with protobuf's text encoding, escaping each byte, and writes the result
// to stdout. -mode=fixed does not print; both answer the same bytes.
//
// At exit it prints "upstream calls: N waits, mean X ms", the time
// getImage waited for the cache's answer.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"perflab/testdata/services/cacherpc"
	"perflab/testdata/services/svc"
)

var (
	upstream string
	calls    svc.Stopwatch // the time getImage waits for the cache
)

func main() {
	os.Exit(svc.Run(svc.Service{
		Name: "grpcapi",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&upstream, "upstream", "", "`host:port` of the grpccache service (required)")
		},
		Handler: handler,
		Report:  func(w io.Writer) { calls.Report(w, "upstream calls") },
	}, os.Args[1:], os.Stdout, os.Stderr))
}

func handler(buggy bool) (http.Handler, error) {
	if upstream == "" {
		return nil, errors.New("-upstream host:port is required")
	}
	conn, err := grpc.NewClient(strings.TrimPrefix(upstream, "grpc://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("-upstream %s: %w", upstream, err)
	}
	cache := cacherpc.NewClient(conn)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.URL.Query().Get("name")
		if name == "" {
			http.Error(w, "want /image?name=N", http.StatusBadRequest)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
		defer cancel()
		img, err := getImage(ctx, cache, name, buggy)
		switch status.Code(err) {
		case codes.OK:
		case codes.NotFound:
			http.Error(w, status.Convert(err).Message(), http.StatusNotFound)
			return
		default:
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "image/png")
		w.Write(img)
	}), nil
}

// getImage asks the cache for the image called name. buggy prints the
// answer, as the case study's service did after a debugging session.
//
//go:noinline
func getImage(ctx context.Context, cache *cacherpc.Client, name string, buggy bool) ([]byte, error) {
	start := time.Now()
	d, err := cache.Get(ctx, &wrapperspb.StringValue{Value: name})
	calls.Since(start)
	if buggy {
		fmt.Println("err", d, err) // the planted cost
	}
	return d.GetValue(), err
}
