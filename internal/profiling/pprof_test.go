package profiling

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"perflab/internal/pprofmux"
)

// TestPprofRecordKeepsTheChunksOfARunCutShort: the window's CPU profile is
// fetched in chunks; run to its end, the chunks merge into one profile of
// the whole window; cut short in its second chunk, the recording returns
// the first, not an error.
func TestPprofRecordKeepsTheChunksOfARunCutShort(t *testing.T) {
	srv := httptest.NewServer(pprofmux.New())
	defer srv.Close()
	defer func(d time.Duration) { cpuChunk = d }(cpuChunk)
	cpuChunk = time.Second
	stop := make(chan struct{})
	defer close(stop)
	go func() { // something for the profiler to see
		for x := 0; ; x++ {
			select {
			case <-stop:
				return
			default:
			}
		}
	}()

	prof, _, err := pprofRecorder{}.Record(context.Background(), Job{Endpoint: srv.URL, Window: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Duration(prof.DurationNanos); d < 1900*time.Millisecond || d > 2600*time.Millisecond || len(prof.Sample) == 0 {
		t.Errorf("a 2 s window in two chunks: %v, %d samples; want one profile of 2 s", d, len(prof.Sample))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	prof, _, err = pprofRecorder{}.Record(ctx, Job{Endpoint: srv.URL, Window: 3 * time.Second})
	if err != nil {
		t.Fatalf("a recording cut short in its second chunk: %v; want the first chunk", err)
	}
	if d := time.Duration(prof.DurationNanos); d < 900*time.Millisecond || d > 1300*time.Millisecond {
		t.Errorf("the recording cut short covers %v; want its first 1 s chunk", d)
	}

	cancelled, stopNow := context.WithCancel(context.Background())
	stopNow()
	if _, _, err := (pprofRecorder{}).Record(cancelled, Job{Endpoint: srv.URL, Window: 2 * time.Second}); err == nil {
		t.Error("a recording cut before its first chunk returned no error")
	}
}
