// Command grpccache is the gRPC upstream of grpcapi, like the emojify
// cache of the pprof case study: perflab.cache.Cache/Get reads the image
// called name from a file and answers its bytes. At start it writes 16
// deterministic PNG files of 20 to 50 KiB ("0" to "15") to a temporary
// directory, removed at exit. -delay sleeps before each answer (an
// upstream slow for reasons of its own). It runs as a process of its own,
// outside the budget of the API under test, and serves net/http/pprof.
//
// It prints "listening on grpc://HOST:PORT" and "pprof on
// http://HOST:PORT/debug/pprof/", stops gracefully on SIGTERM or SIGINT,
// and then prints "cache answers: N waits, mean X ms" (the time from a
// request's decoding to its answer, -delay included).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"perflab/internal/pprofmux"
	"perflab/testdata/services/cacherpc"
	"perflab/testdata/services/svc"
)

// images is how many files the cache holds, named "0" to "15".
const images = 16

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("grpccache", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:9090", "serve gRPC on `host:port` (port 0 picks a free one)")
	pprofAddr := fs.String("pprof-addr", "127.0.0.1:6061", "serve net/http/pprof on `host:port`")
	delay := fs.Duration("delay", 0, "sleep this long before each answer")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *delay < 0 {
		fmt.Fprintf(stderr, "grpccache: -delay %v: must be >= 0\n", *delay)
		return 2
	}
	dir, err := os.MkdirTemp("", "grpccache-")
	if err != nil {
		fmt.Fprintf(stderr, "grpccache: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := writeImages(dir); err != nil {
		fmt.Fprintf(stderr, "grpccache: %v\n", err)
		return 1
	}
	c := &cache{dir: dir, delay: *delay}
	err = serve(*addr, *pprofAddr, c, stdout)
	c.answers.Report(stdout, "cache answers")
	if err != nil {
		fmt.Fprintf(stderr, "grpccache: %v\n", err)
		return 1
	}
	return 0
}

// serve answers gRPC on addr and pprof on pprofAddr until SIGTERM or SIGINT.
func serve(addr, pprofAddr string, c *cache, stdout io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on -addr %s: %w", addr, err)
	}
	pln, err := net.Listen("tcp", pprofAddr)
	if err != nil {
		ln.Close()
		return fmt.Errorf("listening on -pprof-addr %s: %w", pprofAddr, err)
	}
	srv := grpc.NewServer()
	srv.RegisterService(&cacherpc.Desc, c)
	prof := &http.Server{Handler: pprofmux.New()}
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	go func() { errc <- prof.Serve(pln) }()
	fmt.Fprintf(stdout, "listening on grpc://%s\n", ln.Addr())
	fmt.Fprintf(stdout, "pprof on http://%s/debug/pprof/\n", pln.Addr())
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	srv.GracefulStop()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if perr := prof.Shutdown(sctx); err == nil {
		err = perr
	}
	return err
}

// cache serves the image files of dir.
type cache struct {
	dir     string
	delay   time.Duration
	answers svc.Stopwatch
}

// Get reads the image file called name.
func (c *cache) Get(_ context.Context, name *wrapperspb.StringValue) (*wrapperspb.BytesValue, error) {
	start := time.Now()
	defer c.answers.Since(start)
	if c.delay > 0 {
		time.Sleep(c.delay)
	}
	i, err := strconv.Atoi(name.GetValue())
	if err != nil || i < 0 || i >= images {
		return nil, status.Errorf(codes.NotFound, "no image %q (0 to %d)", name.GetValue(), images-1)
	}
	b, err := os.ReadFile(filepath.Join(c.dir, strconv.Itoa(i)+".png"))
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return wrapperspb.Bytes(b), nil
}

// writeImages writes the cache's PNG files: image i is 100 pixels wide,
// of noise (which PNG cannot compress), 20 KiB + 2 KiB × i in size.
func writeImages(dir string) error {
	for i := range images {
		const w = 100
		h := (20<<10 + i*2<<10) / (3 * w)
		img := image.NewNRGBA(image.Rect(0, 0, w, h))
		rng := rand.New(rand.NewPCG(uint64(i), 42))
		for y := range h {
			for x := range w {
				v := rng.Uint32()
				img.SetNRGBA(x, y, color.NRGBA{R: uint8(v), G: uint8(v >> 8), B: uint8(v >> 16), A: 255})
			}
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(i)+".png"), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
