package target

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	if n := len(l.tail(1000)); n != tailLines+1 {
		t.Errorf("tail(1000) has %d lines; want %d", n, tailLines+1)
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
