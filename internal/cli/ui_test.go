package cli

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"perflab/internal/labtest"
)

// syncBuffer is a bytes.Buffer safe to read while the command writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestUIServesUntilInterrupted starts perflab ui on a free port, fetches its
// index and stops it as Ctrl-C would.
func TestUIServesUntilInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr syncBuffer
	env := Env{Stdout: io.Discard, Stderr: &stderr, Getenv: func(string) string { return "" }, Executable: os.Args[0]}
	done := make(chan int, 1)
	go func() { done <- Main(ctx, []string{"ui", "--dir", t.TempDir(), "--addr", "127.0.0.1:0"}, env) }()
	re := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+/)`)
	var url string
	if !labtest.Until(5*time.Second, func() bool {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
		}
		return url != ""
	}) {
		t.Fatalf("perflab ui printed no address: %q", stderr.String())
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), "0 runs in") {
		t.Errorf("GET %s: %d %.200s", url, resp.StatusCode, b)
	}
	cancel()
	select {
	case code := <-done:
		if code != int(ExitOK) {
			t.Errorf("perflab ui exit %d after Ctrl-C; want 0 (stderr %q)", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("perflab ui still serving 10s after Ctrl-C")
	}
	if _, err := net.DialTimeout("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/"), time.Second); err == nil {
		t.Errorf("%s still accepts connections after perflab ui stopped", url)
	}
}

func TestUIRefusesABusyAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, _, stderr := perflab(t, "ui", "--dir", t.TempDir(), "--addr", ln.Addr().String())
	if code == int(ExitOK) || !strings.Contains(stderr, "--addr "+ln.Addr().String()) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("ui on a busy address: exit %d, stderr %q; want a one-line error naming --addr", code, stderr)
	}
}
