package load

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// Progress may be called from another goroutine from the moment the
// attacker exists, before and while Run starts (the race detector checks
// it), and counts the requests as they finish.
func TestProgressWhileRunStarts(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok\n")
	}))
	defer srv.Close()
	a, err := New(Config{Targets: target(t, srv.URL), Concurrency: 2, Requests: 200})
	if err != nil {
		t.Fatal(err)
	}
	if p := a.Progress(); p.Elapsed != 0 || p.Requests != 0 {
		t.Errorf("before Run: %+v; want nothing elapsed or done", p)
	}
	stop, polled := make(chan struct{}), make(chan Progress)
	go func() {
		var last Progress
		for {
			select {
			case <-stop:
				polled <- last
				return
			default:
				last = a.Progress()
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := a.Run(ctx)
	close(stop)
	last := <-polled
	if p := a.Progress(); p.Requests != r.Requests || p.Requests != 200 || last.Requests > p.Requests {
		t.Errorf("progress %+v (last polled %+v); want the 200 requests done", p, last)
	}
}
