package files

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestTailKeepsTheEnd(t *testing.T) {
	tl := NewTail(64)
	fmt.Fprint(tl, "short\n")
	if got := tl.String(); got != "short\n" {
		t.Errorf("under the bound: %q; want all of it", got)
	}
	for i := range 100 {
		fmt.Fprintf(tl, "line %d\n", i)
	}
	got := tl.String()
	if !strings.HasPrefix(got, "[...]\n") || !strings.HasSuffix(got, "line 99\n") || len(got) > 64+len("[...]\n") {
		t.Errorf("over the bound: %q; want a [...] line, then at most 64 bytes ending in the last line", got)
	}
	if rest := strings.TrimPrefix(got, "[...]\n"); !strings.HasPrefix(rest, "line ") {
		t.Errorf("over the bound: %q; want the kept text to start at a whole line", got)
	}
}

func TestTailTwoWriters(t *testing.T) {
	tl := NewTail(1 << 10)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for range 1000 {
				if n, err := tl.Write([]byte("0123456789\n")); n != 11 || err != nil {
					t.Errorf("Write = %d, %v; want 11, nil", n, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got := tl.String(); !strings.HasSuffix(got, "0123456789\n") || len(got) > 1<<10+len("[...]\n") {
		t.Errorf("two writers: %d bytes ending %q; want at most 1 KiB of whole lines", len(got), got[max(0, len(got)-20):])
	}
}
