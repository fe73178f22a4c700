package decide

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"perflab/internal/analysis"
)

// TestSourceLineRefusesAFIFO: the lines py-spy's frames point at are read
// through analysis.Sources: a regular file's line is read, a FIFO named
// like a source file is refused at once (nobody writes to it: reading
// would block the run's analysis), a relative path is not looked up.
func TestSourceLineRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app.py")
	if err := os.WriteFile(app, []byte("import time\n    time.sleep(1)  \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "views.py")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	line := sourceLine(&analysis.Sources{})
	if got := line(app, 2); got != "time.sleep(1)" {
		t.Errorf("line(app.py, 2) = %q; want %q", got, "time.sleep(1)")
	}
	if got := line("app.py", 2); got != "" {
		t.Errorf("line of a relative path = %q; want none", got)
	}
	done := make(chan string, 1)
	go func() { done <- line(fifo, 1) }()
	select {
	case got := <-done:
		if got != "" {
			t.Errorf("line(FIFO, 1) = %q; want none", got)
		}
	case <-time.After(time.Minute):
		t.Fatal("reading a line of a FIFO still blocks after a minute")
	}
}
