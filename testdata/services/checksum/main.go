// Command checksum is the test service of perflab's CI recipe
// (examples/ci/perflab.yml) and of the ab --git tests: GET /sum answers
// the SHA-256 of a 4 KiB block hashed Rounds times over, in main.checksum.
// It imports the standard library only, so a copy of this file with a
// go.mod of its own builds anywhere: the tests commit it into a temporary
// git repository, then commit it again with Rounds doubled (the planted
// regression: twice the CPU per request, in main.checksum).
//
// Flags: -addr (API, default 127.0.0.1:8080) and -pprof-addr
// (net/http/pprof on a listener and mux of its own, default
// 127.0.0.1:6060). SIGTERM or SIGINT shuts it down gracefully (exit 0).
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Rounds is how many times a request hashes its block: the service's cost
// per request.
const Rounds = 160

var block = make([]byte, 4096)

// checksum hashes the block Rounds times, each round over the last digest
// and the block.
func checksum(seed byte) [32]byte {
	sum := sha256.Sum256(append([]byte{seed}, block...))
	for range Rounds - 1 {
		h := sha256.New()
		h.Write(sum[:])
		h.Write(block)
		copy(sum[:], h.Sum(nil))
	}
	return sum
}

func handleSum(w http.ResponseWriter, r *http.Request) {
	var seed byte
	if q := r.URL.Query().Get("seed"); q != "" {
		seed = q[0]
	}
	sum := checksum(seed)
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprintln(w, hex.EncodeToString(sum[:]))
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "API listen address")
	pprofAddr := flag.String("pprof-addr", "127.0.0.1:6060", "net/http/pprof listen address")
	flag.Parse()
	for i := range block {
		block[i] = byte(i * 7)
	}
	api := http.NewServeMux()
	api.HandleFunc("GET /sum", handleSum)
	api.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	dbg := http.NewServeMux()
	dbg.HandleFunc("/debug/pprof/", pprof.Index)
	dbg.HandleFunc("/debug/pprof/profile", pprof.Profile)
	dbg.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	dbg.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	dbg.HandleFunc("/debug/pprof/trace", pprof.Trace)
	servers := []*http.Server{{Handler: api}, {Handler: dbg}}
	for i, a := range []string{*addr, *pprofAddr} {
		ln, err := net.Listen("tcp", a)
		if err != nil {
			log.Fatal(err)
		}
		if i == 0 {
			fmt.Printf("listening on http://%s\n", ln.Addr())
		} else {
			fmt.Printf("pprof on http://%s/debug/pprof/\n", ln.Addr())
		}
		go func(s *http.Server) {
			if err := s.Serve(ln); err != http.ErrServerClosed {
				log.Fatal(err)
			}
		}(servers[i])
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, s := range servers {
		_ = s.Shutdown(sctx)
	}
}
