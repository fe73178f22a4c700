// Command downstream serves GET /price by asking another service (-peer,
// e.g. slowpeer, which answers after 20ms) on every request, like the
// emojify API's calls to its cache and face-detection services:
// main.fetchPrice waits on the network for most of each request. -mode=fixed
// keeps the peer's answer for a second (main.cachedPrice).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"perflab/testdata/services/svc"
)

var (
	peer  string
	calls svc.Stopwatch // the time fetchPrice waits for the peer
)

func main() {
	os.Exit(svc.Run(svc.Service{
		Name: "downstream",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&peer, "peer", "", "`URL` of the service asked for each price (required)")
		},
		Handler: handler,
		Report:  func(w io.Writer) { calls.Report(w, "downstream calls") },
	}, os.Args[1:], os.Stdout, os.Stderr))
}

func handler(buggy bool) (http.Handler, error) {
	if peer == "" {
		return nil, errors.New("-peer URL is required")
	}
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	c := &cache{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var price []byte
		var err error
		if buggy {
			start := time.Now()
			price, err = fetchPrice(client)
			calls.Since(start)
		} else {
			price, err = c.cachedPrice(client)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.Write(price)
	}), nil
}

// fetchPrice asks the peer.
//
//go:noinline
func fetchPrice(client *http.Client) ([]byte, error) {
	resp, err := client.Get(peer)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("peer: %s", resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, 1<<20))
}

// cache keeps the peer's answer for a second.
type cache struct {
	mu    sync.Mutex
	price []byte
	at    time.Time
}

//go:noinline
func (c *cache) cachedPrice(client *http.Client) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.price != nil && time.Since(c.at) < time.Second {
		return c.price, nil
	}
	p, err := fetchPrice(client)
	if err == nil {
		c.price, c.at = p, time.Now()
	}
	return p, err
}
