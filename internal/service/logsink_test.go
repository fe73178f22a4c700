package service

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestLogSinkBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "target.log")
	l, err := newLogSink(path, 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100000 {
		fmt.Fprintf(l, "line %d of the service's chatter\n", i)
	}
	fmt.Fprint(l, "unfinished")
	if err := l.close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if len(b) > 64<<10+100 {
		t.Errorf("log is %d bytes; want about 64KiB", len(b))
	}
	for _, want := range []string{"line 0 of", "bytes of output omitted]", "line 99999 of the service's chatter\nunfinished"} {
		if !strings.Contains(s, want) {
			t.Errorf("log lacks %q", want)
		}
	}
	tail := l.tail(2)
	if len(tail) != 2 || tail[0] != "line 99999 of the service's chatter" || tail[1] != "unfinished" {
		t.Errorf("tail(2) = %q", tail)
	}
	if n := len(l.tail(1000)); n != tailLines {
		t.Errorf("tail(1000) has %d lines; want %d", n, tailLines)
	}
}

func TestLogSinkSmall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "target.log")
	l, _ := newLogSink(path, 0)
	fmt.Fprint(l, "a\r\nb\n")
	_ = l.close()
	if b, _ := os.ReadFile(path); string(b) != "a\r\nb\n" {
		t.Errorf("log = %q; want it verbatim", b)
	}
	if got := l.tail(5); len(got) != 2 || got[0] != "a" {
		t.Errorf("tail = %q", got)
	}
}

// TestOnLine launches a service and sees each line it writes, in order.
func TestOnLine(t *testing.T) {
	var got []string
	done := make(chan struct{})
	p := launchT(t, LaunchConfig{
		Command: []string{"sh", "-c", "echo one; echo two >&2; printf 'three\\nfour'"},
		OnLine: func(s string) {
			got = append(got, s)
			if s == "three" {
				close(done)
			}
		},
	})
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("OnLine never saw the third line")
	}
	<-p.Exited()
	if strings.Join(got, ",") != "one,two,three" {
		t.Errorf("OnLine saw %q; want one, two, three (four has no newline)", got)
	}
}

// TestLogSinkMatchesAcrossWrites gives OnLine only the lines containing
// the match, whole, however the writes cut them, and LogTail leaves out the
// lines HideLine names.
func TestLogSinkMatchesAcrossWrites(t *testing.T) {
	out := "starting\ngc 1 @0.1s 1%: a\nserving\nwarn: slow gc 2 @0.2s 1%: b\n" + strings.Repeat("x", 10000) + "\ngc 3 @0.3s 1%: c\nlast words"
	for _, size := range []int{1, 2, 3, 7, 64, 4096, len(out)} {
		l, err := newLogSink("", 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		l.onLine = func(s string) { got = append(got, s) }
		l.match = []byte("gc ")
		l.hide = func(s string) bool { return strings.HasPrefix(s, "gc ") }
		for i := 0; i < len(out); i += size {
			l.Write([]byte(out[i:min(i+size, len(out))]))
		}
		want := "gc 1 @0.1s 1%: a|warn: slow gc 2 @0.2s 1%: b|gc 3 @0.3s 1%: c"
		if s := strings.Join(got, "|"); s != want {
			t.Errorf("writes of %d bytes: OnLine saw %q, want %q", size, s, want)
		}
		tail := l.tail(3)
		if len(tail) != 3 || !strings.HasPrefix(tail[0], "warn:") || tail[1] != strings.Repeat("x", maxLine) || tail[2] != "last words" {
			t.Errorf("writes of %d bytes: tail(3) = %.60q", size, tail)
		}
	}
}

// TestCrashIsQuotedInTheServicesWords launches services that print and
// exit at once: the error's last lines are theirs every time, read after
// the pipe was drained, and the GC trace perflab asked for is left out.
func TestCrashIsQuotedInTheServicesWords(t *testing.T) {
	script := `echo "gc 1 @0.010s 0%: 0.01+0.2+0.01 ms clock, 0.02+0/0.1/0+0.02 ms cpu, 4->4->0 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P"; echo "fatal: port in use" >&2; echo "gc 2 @0.020s 0%: 0.01+0.2+0.01 ms clock, 0.02+0/0.1/0+0.02 ms cpu, 4->4->0 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P"; exit 3`
	for i := range 20 {
		p := launchT(t, LaunchConfig{Command: []string{"sh", "-c", script}, LineMatch: "gc ",
			OnLine: func(string) {}, HideLine: func(s string) bool { return strings.HasPrefix(s, "gc ") }})
		<-p.Exited()
		if tail := p.LogTail(5); len(tail) != 1 || tail[0] != "fatal: port in use" {
			t.Fatalf("launch %d: LogTail(5) = %q, want the service's own last line", i, tail)
		}
	}
}

// BenchmarkDrain launches a service that writes 256 MiB to stdout as fast
// as it can and reports the drain's throughput and perflab's own CPU per
// MiB (this process's user+system time: the drain goroutine and the
// runtime, while the writer runs in its own process).
func BenchmarkDrain(b *testing.B) {
	const mib = 256
	for range b.N {
		var before, after unix.Rusage
		unix.Getrusage(unix.RUSAGE_SELF, &before)
		start := time.Now()
		p, err := Launch(b.Context(), LaunchConfig{
			Command: []string{"sh", "-c", fmt.Sprintf("yes $(printf %%099d 0) | head -c %dM", mib)},
			LogPath: filepath.Join(b.TempDir(), "target.log"), LineMatch: "gc ", OnLine: func(string) {},
		})
		if err != nil {
			b.Fatal(err)
		}
		<-p.Exited()
		p.Stop(time.Second)
		wall := time.Since(start)
		unix.Getrusage(unix.RUSAGE_SELF, &after)
		cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
		if w := p.LogWritten(); w != mib<<20 {
			b.Fatalf("drained %d bytes", w)
		}
		b.ReportMetric(float64(mib)/wall.Seconds(), "MiB/s")
		b.ReportMetric(float64(cpu.Microseconds())/mib, "cpu-µs/MiB")
	}
}
